/**
 * The validating backend against a man in the middle (test/support/dns-proxy.ts) between it
 * and nsd serving the signed tree of test/support/signed-tree.ts: an upstream that strips
 * DNSSEC records at start makes the backend unavailable with that reason; a signed zone whose
 * records come back unsigned, forged or without their DS is bogus, never insecure. Chain
 * questions are asked once for many questions; negative trust anchors and requireSecure.
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DnsCore, makeQuery, type DnsResult } from '@dnscore/core';
import { startDnsProxy, type DnsProxy, type Rewrite } from '../../../test/support/dns-proxy.js';
import { dropDs, forgeAddresses, setAuthenticData, stripRrsigs } from '../../../test/support/dns-tamper.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { signTree, type SignedTree } from '../../../test/support/signed-tree.js';
import {
  InsecureAnswerError,
  UpstreamNotValidatingError,
  ValidatingResolver,
  type ValidatingResolverOptions,
} from '../src/index.js';

const DS = 43;
const DNSKEY = 48;

let tree: SignedTree;
let nsd: NsdServer;
let proxy: DnsProxy;
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  tree = await signTree();
  nsd = await startNsd(tree.zones);
  proxy = await startDnsProxy(nsd);
}, 60_000);
afterAll(async () => {
  for (const item of open) await item.close();
  await proxy?.close();
  await nsd?.stop();
});
beforeEach(() => {
  proxy.rewrite = (_q, answer) => answer;
  proxy.queries.length = 0;
});

function backend(options: ValidatingResolverOptions = {}): { resolver: ValidatingResolver; core: DnsCore } {
  const resolver = new ValidatingResolver(
    { nameservers: [proxy.endpoint] },
    { trustAnchors: [tree.anchor], ...options },
  );
  const core = new DnsCore([resolver]);
  open.push(core);
  return { resolver, core };
}

function only(name: string, rewrite: Rewrite): Rewrite {
  return (query, answer) => (query.name === name || query.name.endsWith(`.${name}`) ? rewrite(query, answer) : answer);
}

function status(result: DnsResult): string {
  return result.bogus ? 'bogus' : result.secure ? 'secure' : 'insecure';
}

/** What a result says, for exact comparison: status, rcode, records and EDE. */
function verdict(result: DnsResult): { status: string; rcode: string; records: unknown; ede: number | undefined } {
  return { status: status(result), rcode: result.rcodeName, records: result.records, ede: result.ede };
}

describe('an upstream that strips DNSSEC records', () => {
  it('at start: the backend is unavailable with the reason, and fails closed when anchors were given', async () => {
    proxy.rewrite = (_q, answer) => stripRrsigs(answer);
    const { resolver } = backend();
    expect(await resolver.upstreamStatus()).toEqual({
      kind: 'unusable',
      reason: 'the upstream nameservers strip DNSSEC records (DNSKEY of example. came back without RRSIG)',
    });
    expect(resolver.available()).toEqual({
      available: false,
      reason: 'the upstream nameservers strip DNSSEC records (DNSKEY of example. came back without RRSIG)',
      failClosed: true,
    });
    const error = await resolver
      .resolve(makeQuery('www.secure.example', 'A'), new AbortController().signal)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamNotValidatingError);
    expect(error).toMatchObject({ code: 'DNS_ERR_UPSTREAM_STRIPS_DNSSEC', definite: true });
  });

  it('for one signed zone: its unsigned answers are bogus (RRSIGs missing), never insecure', async () => {
    const { core, resolver } = backend();
    await resolver.upstreamStatus();
    proxy.rewrite = only('secure.example', (_q, answer) => stripRrsigs(answer));
    const result = await core.resolve('www.secure.example', 'A');
    expect({ status: status(result), records: result.records, ede: result.ede }).toEqual({
      status: 'bogus',
      records: [],
      ede: 10,
    });
    expect(result.whyBogus).toBe(
      'validation failure <www.secure.example. A IN>: DS of secure.example.: secure.example DS: no RRSIG',
    );
  });

  it('forged data under its old signature is bogus', async () => {
    const { core } = backend();
    proxy.rewrite = only('www.secure.example', (q, answer) =>
      q.type === 1 ? forgeAddresses(answer, '6.6.6.6') : answer,
    );
    const result = await core.resolve('www.secure.example', 'A');
    expect([status(result), result.records.length, result.ede]).toEqual(['bogus', 0, 6]);
  });

  it('a DS taken away (an empty NOERROR without proof) is bogus, not an insecure delegation', async () => {
    const { core } = backend();
    proxy.rewrite = (q, answer) => (q.type === DS && q.name === 'secure.example' ? dropDs(answer) : answer);
    const result = await core.resolve('www.secure.example', 'A');
    expect([status(result), result.ede]).toEqual(['bogus', 12]);
  });

  it('an AD bit set by whoever answers is ignored: an unsigned answer is insecure', async () => {
    const { core } = backend();
    proxy.rewrite = (_q, answer) => setAuthenticData(answer);
    const result = await core.resolve('www.insecure.example', 'A');
    expect(status(result)).toBe('insecure');
  });
});

describe('chain questions', () => {
  it('are asked once for many questions at once: one DNSKEY and one DS per zone', async () => {
    const { core, resolver } = backend();
    await resolver.upstreamStatus();
    proxy.queries.length = 0;
    const names = ['www', 'alias', 'sip1', 'nothere', 'tagged'].map((n) => `${n}.secure.example`);
    const results = await Promise.all(names.map((name) => core.resolve(name, 'A')));
    expect(results.map(status)).toEqual(['secure', 'secure', 'secure', 'secure', 'secure']);
    const asked = (type: number, name: string): number =>
      proxy.queries.filter((q) => q.type === type && q.name === name).length;
    expect(asked(DNSKEY, 'secure.example')).toBe(1);
    expect(asked(DS, 'secure.example')).toBe(1);
    expect(asked(DNSKEY, 'example')).toBe(0);
  });
});

describe('a chain question without an answer', () => {
  it('makes the answer bogus (no proof), not an error another backend would answer for', async () => {
    const { core, resolver } = backend({ timeoutMs: 300, attempts: 1 });
    await resolver.upstreamStatus();
    proxy.rewrite = (q, answer) => (q.type === DS && q.name === 'other.example' ? new Uint8Array(0) : answer);
    const result = await core.resolve('www.other.example', 'A');
    expect([status(result), result.records.length, result.ede]).toEqual(['bogus', 0, 6]);
    expect(result.whyBogus).toMatch(/^validation failure <www\.other\.example\. A IN>: /);
    expect(result.whyBogus).toContain(': the chain of trust for other.example. could not be fetched: ');
  });
});

describe('RRsets verified once', () => {
  it('a warm question reuses the verified RRset; changed data under its signature is bogus', async () => {
    // Without the validated answers: every question is asked and validated again.
    const { core, resolver } = backend({ answerCacheSize: 0 });
    expect(status(await core.resolve('www.secure.example', 'A'))).toBe('secure');
    expect(resolver.verifiedReused).toBe(0);
    expect(status(await core.resolve('www.secure.example', 'A'))).toBe('secure');
    expect(resolver.verifiedReused).toBe(1);
    proxy.rewrite = only('www.secure.example', (q, answer) =>
      q.type === 1 ? forgeAddresses(answer, '6.6.6.6') : answer,
    );
    const forged = await core.resolve('www.secure.example', 'A');
    expect([status(forged), forged.records.length, resolver.verifiedReused]).toEqual(['bogus', 0, 1]);
  });
});

describe('denial records verified once', () => {
  it('a NODATA asked again reuses its verified NSEC; the same NSEC without its RRSIG is bogus', async () => {
    const { core, resolver } = backend({ answerCacheSize: 0 });
    const first = await core.resolve('www.secure.example', 'TXT');
    expect([status(first), first.records.length, resolver.verifiedReused]).toEqual(['secure', 0, 0]);
    const again = await core.resolve('www.secure.example', 'TXT');
    expect([status(again), again.records.length, resolver.verifiedReused]).toEqual(['secure', 0, 1]);
    proxy.rewrite = only('www.secure.example', (q, answer) => (q.type === 16 ? stripRrsigs(answer) : answer));
    const stripped = await core.resolve('www.secure.example', 'TXT');
    // Unsigned data: its zone is looked up, and the DS question for www (no zone cut) is denied
    // by that same NSEC, signed in that answer: one more reuse, and the TXT answer stays bogus.
    expect([status(stripped), stripped.records.length, resolver.verifiedReused]).toEqual(['bogus', 0, 2]);
    expect(stripped.whyBogus).toContain('no signed NSEC or NSEC3');
  });
});

describe('negative trust anchors and requireSecure', () => {
  it('a negative trust anchor makes a bogus zone insecure, with its data', async () => {
    const { core } = backend({ negativeTrustAnchors: ['bogus.example'] });
    const result = await core.resolve('www.bogus.example', 'A');
    expect([status(result), result.records.map((r) => r.data)]).toEqual(['insecure', ['203.0.113.66']]);
    expect(status(await core.resolve('www.secure.example', 'A'))).toBe('secure');
  });

  it('requireSecure turns an insecure answer into InsecureAnswerError (definite)', async () => {
    const { core } = backend({ requireSecure: true });
    await expect(core.resolve('www.insecure.example', 'A')).rejects.toBeInstanceOf(InsecureAnswerError);
    expect(status(await core.resolve('www.secure.example', 'A'))).toBe('secure');
  });
});

/**
 * An RRSIG's signer name is written by whoever answers. With a trust anchor below the root
 * (`example.` here), a signer above it (the root) lies in no chain of trust: that must not make
 * data of the anchored, signed zone insecure (libunbound says bogus too).
 */
describe('an RRSIG naming a signer above the trust anchor', () => {
  const rootSigned = (answer: Uint8Array, change: (p: dnsPacket.Packet) => void): Uint8Array => {
    const packet = dnsPacket.decode(Buffer.from(answer));
    change(packet);
    return dnsPacket.encode(packet);
  };

  it('forged data whose RRSIG names the root as signer is bogus, not insecure', async () => {
    const { core } = backend();
    proxy.rewrite = only('www.secure.example', (q, answer) =>
      q.type !== 1
        ? answer
        : rootSigned(answer, (p) => {
            p.answers = (p.answers ?? []).map((r) =>
              r.type === 'A'
                ? { ...r, data: '6.6.6.6' }
                : r.type === 'RRSIG'
                  ? { ...r, data: { ...r.data, signersName: '.' } }
                  : r,
            );
          }),
    );
    const result = await core.resolve('www.secure.example', 'A');
    expect(verdict(result)).toEqual({
      status: 'bogus',
      rcode: 'NOERROR',
      records: [],
      ede: 6,
    });
    expect(result.whyBogus).toBe(
      'validation failure <www.secure.example. A IN>: www.secure.example. type 1: signed by ., ' +
        'outside the chain of trust of the signed zone secure.example.',
    );
  });

  it('a forged NXDOMAIN whose SOA RRSIG names the root as signer is bogus, not insecure', async () => {
    const { core } = backend();
    proxy.rewrite = only('www.secure.example', (q, answer) =>
      q.type !== 1
        ? answer
        : rootSigned(answer, (p) => {
            p.flags = ((p.flags ?? 0) & ~0x0f) | 3; // rcode NXDOMAIN
            p.answers = [];
            p.authorities = [
              {
                name: 'example',
                type: 'SOA',
                ttl: 300,
                data: { mname: 'ns1.example', rname: 'h.example', serial: 1, minimum: 300 },
              },
              {
                name: 'example',
                type: 'RRSIG',
                ttl: 300,
                data: {
                  typeCovered: 'SOA',
                  algorithm: 13,
                  labels: 1,
                  originalTTL: 300,
                  expiration: 2_000_000_000,
                  inception: 1,
                  keyTag: 1,
                  signersName: '.',
                  signature: Buffer.alloc(64),
                },
              },
            ];
          }),
    );
    const result = await core.resolve('www.secure.example', 'A');
    expect(verdict(result)).toEqual({
      status: 'bogus',
      rcode: 'NXDOMAIN',
      records: [],
      ede: 6,
    });
    expect(result.whyBogus).toBe(
      'validation failure <www.secure.example. A IN>: NXDOMAIN for www.secure.example.: signed by ., ' +
        'outside the chain of trust of the signed zone secure.example.',
    );
  });

  it('an unsigned zone under the anchor stays insecure', async () => {
    const { core } = backend();
    const result = await core.resolve('www.insecure.example', 'A');
    expect([status(result), result.rcodeName]).toEqual(['insecure', 'NOERROR']);
  });
});

/**
 * The end of a CNAME/DNAME chain whose denial does not hold in the message that followed the
 * link (an authoritative server may leave out part of the proof for another of its zones) is
 * asked on its own; that answer's proof decides.
 */
describe('a denial for the end of a chain, incomplete in the message that followed the link', () => {
  const withoutNsec = (answer: Uint8Array): Uint8Array => {
    const packet = dnsPacket.decode(Buffer.from(answer));
    packet.authorities = (packet.authorities ?? []).filter(
      (r) => r.type !== 'NSEC' && !(r.type === 'RRSIG' && r.data.typeCovered === 'NSEC'),
    );
    return dnsPacket.encode(packet);
  };

  it('is asked again on its own: a complete proof there makes it secure', async () => {
    const { core } = backend();
    proxy.rewrite = only('to-other.secure.example', (q, answer) => (q.type === 28 ? withoutNsec(answer) : answer));
    const result = await core.resolve('to-other.secure.example', 'AAAA');
    expect({ status: status(result), rcode: result.rcodeName, records: result.records }).toEqual({
      status: 'secure',
      rcode: 'NOERROR',
      records: [],
    });
    expect(proxy.queries.filter((q) => q.type === 28).map((q) => q.name)).toEqual([
      'to-other.secure.example',
      'www.other.example',
    ]);
  });

  it('stays bogus when the answer asked on its own has no proof either', async () => {
    const { core } = backend();
    proxy.rewrite = (q, answer) => (q.type === 28 ? withoutNsec(answer) : answer);
    const result = await core.resolve('to-other.secure.example', 'AAAA');
    expect(verdict(result)).toEqual({
      status: 'bogus',
      rcode: 'NOERROR',
      records: [],
      ede: 12,
    });
    expect(result.whyBogus).toBe(
      'validation failure <to-other.secure.example. AAAA IN>: NODATA for www.other.example.: ' +
        'the denial has no NSEC or NSEC3 records',
    );
  });
});

/**
 * The core follows a CNAME at a name before it looks for the data there: an unsigned CNAME put
 * beside a signed RRset must not lead it, under the signed RRset's verdict, to forged data.
 */
describe('a CNAME beside the data asked for', () => {
  it('makes the answer bogus: the chain it starts is neither validated nor handed on as secure', async () => {
    const { core } = backend();
    proxy.rewrite = only('www.secure.example', (q, answer) => {
      if (q.type !== 1) return answer;
      const packet = dnsPacket.decode(Buffer.from(answer));
      packet.answers = [
        { name: 'www.secure.example', type: 'CNAME', ttl: 300, class: 'IN', data: 'evil.insecure.example' },
        ...(packet.answers ?? []),
        { name: 'evil.insecure.example', type: 'A', ttl: 300, class: 'IN', data: '6.6.6.6' },
      ];
      return dnsPacket.encode(packet);
    });
    const result = await core.resolve('www.secure.example', 'A');
    expect(verdict(result)).toEqual({
      status: 'bogus',
      rcode: 'NOERROR',
      records: [],
      ede: 6,
    });
    expect(result.whyBogus).toBe(
      'validation failure <www.secure.example. A IN>: www.secure.example. has a CNAME and type 1 data beside it',
    );
  });
});

/** The rcode is not signed: NXDOMAIN put on a signed answer does not make a secure NXDOMAIN. */
describe('NXDOMAIN beside the data asked for', () => {
  it('is bogus, with no records', async () => {
    const { core } = backend();
    proxy.rewrite = only('www.secure.example', (q, answer) => {
      if (q.type !== 1) return answer;
      const out = Uint8Array.from(answer);
      out[3] = (out[3]! & 0xf0) | 3; // rcode NXDOMAIN
      return out;
    });
    const result = await core.resolve('www.secure.example', 'A');
    expect(verdict(result)).toEqual({
      status: 'bogus',
      rcode: 'NXDOMAIN',
      records: [],
      ede: 6,
    });
    expect(result.whyBogus).toBe(
      'validation failure <www.secure.example. A IN>: NXDOMAIN, but the answer holds data of www.secure.example.',
    );
  });
});
