/** selectNaptr on real NAPTR records (from the zones), nominal and off-nominal. */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, type TypedRecord } from '@dnscore/core';
import { selectNaptr } from '../src/naptr-selection.js';
import type { SipTransport } from '../src/transport.js';
import { ALL_ZONES } from './support/fixtures.js';

const core = new DnsCore([new ZoneResolver({ files: ALL_ZONES })]);
async function naptr(name: string): Promise<readonly TypedRecord<'NAPTR'>[]> {
  return (await core.resolve(name, 'NAPTR')).records;
}
const all = new Set<SipTransport>(['udp', 'tcp', 'tls']);

describe('selectNaptr: nominal', () => {
  it('the walk-through zone: SIPS+D2T of order 50 is the only candidate; the others are of other orders', async () => {
    const selection = selectNaptr(await naptr('biloxi.example'), 'sip', all);
    expect(selection.candidates.map((c) => [c.transport, c.srv, c.text])).toEqual([
      ['tls', '_sips._tcp.biloxi.example', '50 50 "s" "SIPS+D2T" "" _sips._tcp.biloxi.example.'],
    ]);
    expect(selection.verdicts.map((v) => v.ignored?.reason ?? 'candidate')).toEqual([
      'candidate',
      'order 90 is not the lowest usable order 50 (RFC 3403: once a record of an order applies, other orders are not ' +
        'considered)',
      'order 100 is not the lowest usable order 50 (RFC 3403: once a record of an order applies, other orders are ' +
        'not considered)',
    ]);
    expect(selection.missingServices).toEqual([]);
    expect(selection.hasSipService).toBe(true);
  });

  it('candidates of one order come by preference, services and flags in any case', async () => {
    const selection = selectNaptr(await naptr('sameorder.cases.example'), 'sip', all);
    expect(selection.candidates.map((c) => [c.record.data.order, c.record.data.preference, c.transport])).toEqual([
      [10, 10, 'tls'],
      [10, 20, 'tcp'],
    ]);
  });

  it('the lowest usable order depends on the client: without TLS, order 10 keeps only SIP+D2T', async () => {
    const selection = selectNaptr(await naptr('sameorder.cases.example'), 'sip', new Set(['udp', 'tcp']));
    expect(selection.candidates.map((c) => c.transport)).toEqual(['tcp']);
  });

  it('reports the services a set lacks', async () => {
    expect(selectNaptr(await naptr('naptr-partial.cases.example'), 'sip', all).missingServices).toEqual([
      'SIPS+D2T',
      'SIP+D2T',
    ]);
  });
});

describe('selectNaptr: off-nominal', () => {
  it('no records: no candidate, nothing missing reported as SIP', () => {
    const selection = selectNaptr([], 'sip', all);
    expect(selection).toMatchObject({ candidates: [], verdicts: [], hasSipService: false });
  });

  it('a set of only unusable records has no candidate', async () => {
    const selection = selectNaptr(await naptr('unusable.cases.example'), 'sip', all);
    expect(selection.candidates).toEqual([]);
    expect(selection.verdicts.every((v) => v.ignored?.outcome === 'ignored')).toBe(true);
  });

  it('a SIPS URI with a SIP-only client set has no candidate', async () => {
    const selection = selectNaptr(await naptr('naptr-partial.cases.example'), 'sips', all);
    expect(selection.candidates).toEqual([]);
  });
});
