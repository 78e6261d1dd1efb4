/**
 * Regressions of issue 14: two RFC 3263 violations a widely deployed SIP proxy commits, which
 * dnscore must never copy. (1) When every TLS target of a sips: URI fails, the walk ends: no
 * NAPTR of another service, never UDP (RFC 3263 section 4.1: a client resolving a SIPS URI MUST
 * discard any services that do not contain "SIPS"). (2) An explicit port and no A/AAAA: no
 * target, no NAPTR/SRV fallback (RFC 3263 section 4.2).
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { NoTargetsError, SipsWithoutTlsError, TargetsExhaustedError } from '../src/errors.js';
import { SipLocator } from '../src/locator.js';
import type { TryOutcome } from '../src/try-outcome.js';
import { recording } from './support/recording-plugin.js';

/** TLS offered first (two servers), then UDP in the same order, then TCP in a later order; an A-less host with SRV. */
const ZONE = `$ORIGIN regress.test.
$TTL 3600
@ IN SOA ns hostmaster 1 3600 600 86400 300
@ IN NAPTR 10 10 "s" "SIPS+D2T" "" _sips._tcp
@ IN NAPTR 10 20 "s" "SIP+D2U" "" _sip._udp
@ IN NAPTR 20 10 "s" "SIP+D2T" "" _sip._tcp
_sips._tcp IN SRV 10 0 5061 tls1
_sips._tcp IN SRV 20 0 5061 tls2
_sip._udp IN SRV 10 0 5060 udp1
_sip._tcp IN SRV 10 0 5060 tcp1
tls1 IN A 192.0.2.61
tls2 IN A 192.0.2.62
udp1 IN A 192.0.2.50
tcp1 IN A 192.0.2.51
noa IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp.noa
_sip._udp.noa IN SRV 10 0 5060 udp1
`;

function locator() {
  const plugin = recording(new ZoneResolver({ zones: [{ text: ZONE }] }));
  const core = new DnsCore([plugin], { random: seededRandom(1) });
  return { plugin, locator: new SipLocator(core, { ipv6: false }) };
}

describe('issue 14: a sips: URI whose TLS targets all fail is never sent over another service', () => {
  it('both TLS servers refuse: only they are tried, then TargetsExhaustedError, no UDP or TCP try', async () => {
    const { locator: l } = locator();
    const cursor = l.cursor('sips:bob@regress.test');
    const refused: TryOutcome = { type: 'transport-error', error: new Error('connect ECONNREFUSED') };
    const run = cursor.run(async () => refused);
    await expect(run).rejects.toBeInstanceOf(TargetsExhaustedError);
    await expect(run).rejects.toThrow('every target of sips:bob@regress.test failed (2 tried)');
    expect(cursor.tries.map((t) => `${t.attempt.target.transport} ${t.attempt.target.address}`)).toEqual([
      'tls 192.0.2.61',
      'tls 192.0.2.62',
    ]);
    // The resolution never held a target of another service, so no step could reach one.
    expect(cursor.resolution!.targets.every((t) => t.transport === 'tls')).toBe(true);
  });

  it('also with a failover set and every timeout: still only the TLS servers', async () => {
    const { locator: l } = locator();
    const cursor = l.cursor('sips:bob@regress.test', { failoverOn: [500, 503] });
    const seen: string[] = [];
    for (let a = await cursor.next(); a; a = await cursor.next()) {
      seen.push(a.target.transport);
      cursor.report(a, { type: 'response', status: 500 });
    }
    expect(seen).toEqual(['tls', 'tls']);
    expect(cursor.state).toBe('exhausted');
  });

  it('the UDP service is real: a client without TLS gets it for sip:, and nothing at all for sips:', async () => {
    const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })], { random: seededRandom(1) });
    const noTls = new SipLocator(core, { ipv6: false, transports: ['udp', 'tcp'] });
    expect((await noTls.resolve('sip:bob@regress.test')).targets.map((t) => `${t.transport} ${t.address}`)).toEqual([
      'udp 192.0.2.50',
    ]);
    const sips = await noTls.resolve('sips:bob@regress.test');
    expect(sips.targets).toEqual([]);
    expect(sips.error).toBeInstanceOf(SipsWithoutTlsError);
  });
});

describe('issue 14: an explicit port and no A record ends with no target', () => {
  it('sip:bob@noa.regress.test:5070, NAPTR and SRV but no A: NoTargetsError, no NAPTR or SRV asked', async () => {
    const { locator: l, plugin } = locator();
    const resolution = await l.resolve('sip:bob@noa.regress.test:5070');
    expect(resolution.targets).toEqual([]);
    expect(resolution.error).toBeInstanceOf(NoTargetsError);
    expect(resolution.error!.code).toBe('SIP_ERR_NO_TARGETS');
    expect(plugin.asked).toEqual(['noa.regress.test A']);
    await expect(l.cursor('sip:bob@noa.regress.test:5070').next()).rejects.toBeInstanceOf(NoTargetsError);
  });
});
