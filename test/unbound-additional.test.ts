/**
 * libunbound's validator strips from a secure answer every additional RRset that did not
 * validate (val-clean-additional, its default), so @dnscore/resolver-unbound marks such an
 * answer additionalSecure and a SIP resolution takes an SRV answer's validated target
 * addresses without asking A/AAAA. Shown here with a man in the middle between real libunbound
 * and nsd on a signed tree (test/support/signed-tree-behind-proxy.ts): a forged or unsigned
 * additional address never reaches a target, secure or not; with the option off the flag is
 * false and the targets' addresses are asked.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, withCache } from '@dnscore/core';
import { UnboundResolver, type UnboundOptions } from '@dnscore/resolver-unbound';
import { SipLocator, type SipResolution } from '@dnscore/sip';
import type { ProxiedQuery, Rewrite } from './support/dns-proxy.js';
import { forgeAddresses, forgeAdditionalAddresses, injectUnsignedAdditional } from './support/dns-tamper.js';
import { signedTreeBehindProxy } from './support/signed-tree-behind-proxy.js';

const FORGED = '6.6.6.6';
const URI = 'sip:bob@secure.example';
const SRV_OWNER = '_sip._udp.secure.example';
const A = 1;
const SRV = 33;
const AAAA = 28;

const mitm = signedTreeBehindProxy();

/** Rewrites only the answer to the SRV question (libunbound asks with the DO bit). */
function onSrv(rewrite: (answer: Uint8Array) => Uint8Array): Rewrite {
  return (query, answer) => (query.name === SRV_OWNER && query.type === SRV ? rewrite(answer) : answer);
}

/** A fresh libunbound context (fresh cache) under the tree's anchor, alone in the core. */
function core(options: UnboundOptions = {}, cached = false): DnsCore {
  const unbound = new UnboundResolver({ ...mitm.unboundOptions, ...options });
  return mitm.closeAtEnd(new DnsCore([cached ? withCache(unbound) : unbound]));
}

function locate(on: DnsCore, ipv6 = false): Promise<SipResolution> {
  return new SipLocator(on, { transports: ['udp'], ipv6, dnssec: 'require' }).resolve(URI, { stepThrough: true });
}

/** A and AAAA questions for the SRV target (the locator asks those of the URI's domain itself in round 1). */
const addressQuestions = (): string[] =>
  mitm.proxy.queries
    .filter((q: ProxiedQuery) => q.name === 'sip1.secure.example' && (q.type === A || q.type === AAAA))
    .map((q) => `${q.name}/${q.type}`);

function targets(resolution: SipResolution): string[][] {
  return resolution.targets.map((t) => [t.address, String(t.port), t.dnssec]);
}

function addressLink(resolution: SipResolution): string[] {
  return resolution.targets.map((t) => {
    const link = t.links.at(-1)!;
    return `${link.type} ${link.name} ${link.dnssec} (${link.note ?? 'own query'})`;
  });
}

describe('a signed SRV answer through libunbound: its additional section', () => {
  it('untouched: additionalSecure, and the validated address stands in for its A and AAAA questions', async () => {
    const on = core();
    const srv = await on.resolve(SRV_OWNER, 'SRV');
    expect([srv.dnssec, srv.additionalSecure]).toEqual(['secure', true]);
    expect(srv.additional.filter((r) => r.type === 'A').map((r) => `${r.name} ${String(r.data)}`)).toEqual([
      'sip1.secure.example 192.0.2.81',
    ]);

    mitm.proxy.queries.length = 0;
    const resolution = await locate(core(), true);
    expect(resolution.error).toBeUndefined();
    expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
    expect(addressLink(resolution)).toEqual([
      `A sip1.secure.example secure (additional section of ${SRV_OWNER}, validated)`,
    ]);
    expect(resolution.targets[0]!.links.map((l) => `${l.type} ${l.name} ${l.dnssec}`)).toEqual([
      'NAPTR secure.example secure',
      `SRV ${SRV_OWNER} secure`,
      'A sip1.secure.example secure',
    ]);
    // Cold: the chain of trust, NAPTR and SRV, and no A or AAAA question for the target.
    expect(addressQuestions()).toEqual([]);
    expect(mitm.proxy.queries.map((q) => `${q.name}/${q.type}`)).toContain(`${SRV_OWNER}/${SRV}`);
  });

  it.each([false, true])(
    'again and again (core cache: %s, else libunbound cache): secure, no A or AAAA question',
    async (cached) => {
      const on = core({}, cached);
      for (let round = 0; round < 3; round++) {
        const resolution = await locate(on);
        expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
        const srv = await on.resolve(SRV_OWNER, 'SRV');
        expect([srv.dnssec, srv.additionalSecure]).toEqual(['secure', true]);
      }
      expect(addressQuestions()).toEqual([]);
    },
  );

  it('a forged additional address (its RRSIG kept) is removed by libunbound: the real address is asked', async () => {
    mitm.proxy.rewrite = onSrv((answer) => forgeAdditionalAddresses(answer, FORGED));
    const on = core();
    const srv = await on.resolve(SRV_OWNER, 'SRV');
    expect([srv.dnssec, srv.additionalSecure]).toEqual(['secure', true]);
    expect(srv.additional.filter((r) => r.type === 'A' || r.type === 'RRSIG')).toEqual([]);

    mitm.proxy.queries.length = 0;
    const resolution = await locate(core());
    expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
    expect(addressLink(resolution)).toEqual(['A sip1.secure.example secure (own query)']);
    expect(addressQuestions()).toEqual([`sip1.secure.example/${A}`]);
    expect(JSON.stringify(resolution)).not.toContain(FORGED);
  });

  it('the additional and the A answer both forged: no target at all, never the forged address', async () => {
    const forgeBoth: Rewrite = (query, answer) => {
      if (query.name === SRV_OWNER) return forgeAdditionalAddresses(answer, FORGED);
      if (query.name === 'sip1.secure.example' && query.type === A) return forgeAddresses(answer, FORGED);
      return answer;
    };
    mitm.proxy.rewrite = forgeBoth;
    const on = core();
    const resolution = await locate(on);
    expect(resolution.targets).toEqual([]);
    expect(resolution.error?.code).toBe('SIP_ERR_BOGUS');
    expect(JSON.stringify(resolution.targets)).not.toContain(FORGED);
    // With the SIP policy at "prefer", a bogus address is no target either.
    const prefer = await new SipLocator(on, { transports: ['udp'], ipv6: false, dnssec: 'prefer' }).resolve(URI);
    expect(prefer.targets.map((t) => t.address)).not.toContain(FORGED);
  });

  it('after a bogus A answer for the target, the cached SRV answer carries only the validated address', async () => {
    const on = core();
    await on.resolve(SRV_OWNER, 'SRV');
    mitm.proxy.rewrite = (query, answer) =>
      query.name === 'sip1.secure.example' && query.type === A ? forgeAddresses(answer, FORGED) : answer;
    // Asked on its own, the forged A answer is bogus.
    const direct = await on.resolve('sip1.secure.example', 'A');
    expect([direct.dnssec, direct.records]).toEqual(['bogus', []]);
    mitm.proxy.queries.length = 0;
    const resolution = await locate(on);
    expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
    expect(addressQuestions()).toEqual([]);
  });

  it('unsigned additional addresses injected by the attacker are never used', async () => {
    mitm.proxy.rewrite = onSrv((answer) =>
      injectUnsignedAdditional(answer, { 'sip1.secure.example': FORGED, 'sip2.secure.example': '6.6.6.7' }),
    );
    const on = core();
    const srv = await on.resolve(SRV_OWNER, 'SRV');
    expect([srv.dnssec, srv.additionalSecure]).toEqual(['secure', true]);
    expect(srv.additional.filter((r) => r.type === 'A')).toEqual([]);

    mitm.proxy.queries.length = 0;
    for (const dnssec of ['require', 'prefer'] as const) {
      const resolution = await new SipLocator(core(), { transports: ['udp'], ipv6: false, dnssec }).resolve(URI);
      expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
      expect(JSON.stringify(resolution)).not.toContain('6.6.6.');
    }
    expect(addressQuestions()).toEqual([`sip1.secure.example/${A}`, `sip1.secure.example/${A}`]);
  });
});

describe('val-clean-additional turned off through options', () => {
  const off: UnboundOptions = { options: { 'val-clean-additional': 'no' } };

  it('additionalSecure is false: the additional address is not taken, its A is asked', async () => {
    const on = core(off);
    const srv = await on.resolve(SRV_OWNER, 'SRV');
    expect([srv.dnssec, srv.additionalSecure]).toEqual(['secure', false]);
    expect(srv.additional.filter((r) => r.type === 'A').map((r) => String(r.data))).toEqual(['192.0.2.81']);

    mitm.proxy.queries.length = 0;
    const resolution = await locate(core(off));
    expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
    expect(addressLink(resolution)).toEqual(['A sip1.secure.example secure (own query)']);
    expect(addressQuestions()).toEqual([`sip1.secure.example/${A}`]);
  });

  it('a forged additional address that libunbound now keeps on a secure answer is still not used', async () => {
    mitm.proxy.rewrite = onSrv((answer) => forgeAdditionalAddresses(answer, FORGED));
    const on = core(off);
    const srv = await on.resolve(SRV_OWNER, 'SRV');
    // libunbound leaves the forged record in (its RRSIG no longer matches): the flag must be false.
    expect([srv.dnssec, srv.additionalSecure]).toEqual(['secure', false]);
    expect(srv.additional.filter((r) => r.type === 'A').map((r) => String(r.data))).toEqual([FORGED]);
    const resolution = await locate(core(off));
    expect(targets(resolution)).toEqual([['192.0.2.81', '5060', 'secure']]);
    expect(JSON.stringify(resolution.targets)).not.toContain(FORGED);
  });
});
