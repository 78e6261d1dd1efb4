/**
 * boundTtls (src/validated-ttl.ts) on messages made here: which RRSIGs bound an RRset (those
 * in their validity window, slack included), the SOA MINIMUM, TTLs with the top bit set, the
 * cap, and records copied only when over their bound.
 */
import { describe, expect, it } from 'vitest';
import { makeQuery, type WireMessage } from '@dnscore/core/plugin';
import type { Fetched } from '../src/upstream.js';
import { boundTtls } from '../src/validated-ttl.js';
import { groupRrsets, type Rr } from '../src/validate/index.js';

const NOW_S = 1_800_000_000;
const NOW_MS = NOW_S * 1000;
const SKEW = 300;
const CAP = 86_400;
const A = 1;
const SOA = 6;
const RRSIG = 46;
const CNAME = 5;
const DNAME = 39;
const ZONE_WIRE = [4, ...Buffer.from('test'), 0];

function a(ttl: number): Rr {
  return { name: 'www.test', rrtype: A, class: 1, ttl, rdata: Uint8Array.of(192, 0, 2, 1) };
}

function rrsig(covered: number, ttl: number, originalTtl: number, inception: number, expiration: number): Rr {
  const rdata = Buffer.alloc(18 + ZONE_WIRE.length + 4);
  rdata.writeUInt16BE(covered, 0);
  rdata[2] = 13;
  rdata[3] = 2;
  rdata.writeUInt32BE(originalTtl >>> 0, 4);
  rdata.writeUInt32BE(expiration >>> 0, 8);
  rdata.writeUInt32BE(inception >>> 0, 12);
  rdata.writeUInt16BE(12345, 16);
  rdata.set(ZONE_WIRE, 18);
  return { name: covered === SOA ? 'test' : 'www.test', rrtype: RRSIG, class: 1, ttl, rdata };
}

function soa(ttl: number, minimum: number): Rr {
  const rdata = Buffer.alloc(ZONE_WIRE.length * 2 + 20);
  rdata.set(ZONE_WIRE, 0);
  rdata.set(ZONE_WIRE, ZONE_WIRE.length);
  rdata.writeUInt32BE(minimum, rdata.length - 4);
  return { name: 'test', rrtype: SOA, class: 1, ttl, rdata };
}

function message(answer: Rr[], authority: Rr[] = [], additional: Rr[] = []): Fetched {
  return {
    query: makeQuery('www.test', 'A'),
    message: {} as WireMessage,
    rcode: 0,
    answer,
    authority,
    additional,
    answerSets: groupRrsets(answer),
    authoritySets: groupRrsets(authority),
  };
}

const bound = (messages: Fetched[], cap = CAP) => boundTtls(messages, NOW_MS, SKEW, cap);
const ttls = (records: readonly Rr[]) => records.map((r) => r.ttl);

describe('boundTtls', () => {
  it('keeps a message within its bounds as it is, its lifetime the lowest TTL', () => {
    const fetched = message([a(300), rrsig(A, 300, 300, NOW_S - 3600, NOW_S + 86_400)]);
    const out = bound([fetched]);
    expect(out.lifetime).toBe(300);
    expect(out.messages[0]).toBe(fetched);
  });

  it("bounds an RRset by its RRSIG's original TTL and by the time left to its expiration", () => {
    const byOriginal = bound([message([a(7200), rrsig(A, 7200, 300, NOW_S - 3600, NOW_S + 86_400)])]);
    expect([byOriginal.lifetime, ttls(byOriginal.messages[0]!.answer)]).toEqual([300, [300, 300]]);
    const byExpiration = bound([message([a(3600), rrsig(A, 3600, 3600, NOW_S - 3600, NOW_S + 42)])]);
    expect([byExpiration.lifetime, ttls(byExpiration.messages[0]!.answer)]).toEqual([42, [42, 42]]);
  });

  it('counts every RRSIG in its window (slack included), none outside it', () => {
    const records = [
      a(3600),
      rrsig(A, 3600, 3600, NOW_S - 3600, NOW_S + 600), // in its window: bounds to 600
      rrsig(A, 3600, 3600, NOW_S - 7200, NOW_S - 301), // expired beyond the slack: bounds nothing
      rrsig(A, 3600, 3600, NOW_S + 301, NOW_S + 9000), // not yet valid beyond the slack: nothing
    ];
    expect(bound([message(records)]).lifetime).toBe(600);
    // Expired, within the slack: it may be the one that validated, and holds for nothing.
    expect(bound([message([a(3600), rrsig(A, 3600, 3600, NOW_S - 7200, NOW_S - 10)])]).lifetime).toBe(0);
  });

  it('bounds an SOA by its MINIMUM, and the whole answer by its shortest RRset in any message and section', () => {
    const negative = message([], [soa(3600, 120)]);
    const out = bound([negative]);
    expect([out.lifetime, ttls(out.messages[0]!.authority)]).toEqual([120, [120]]);
    const two = bound([message([a(900)]), message([a(3600)], [], [a(60)])]);
    expect(two.lifetime).toBe(60);
    expect(two.messages.map((m) => ttls(m.answer))).toEqual([[900], [3600]]);
  });

  it('reads a TTL with the top bit set as 0 (RFC 2181 section 8); caps every TTL; no RRset, no lifetime', () => {
    expect(bound([message([a(0x80000000)])]).lifetime).toBe(0);
    const capped = bound([message([a(3600)])], 5);
    expect([capped.lifetime, ttls(capped.messages[0]!.answer)]).toEqual([5, [5]]);
    expect(bound([message([])]).lifetime).toBe(0);
  });

  it("bounds a DNAME's unsigned synthesized CNAME by the DNAME's bound (RFC 6672 3.2), no other CNAME", () => {
    const record = (name: string, rrtype: number, ttl: number, target: string): Rr => ({
      name,
      rrtype,
      class: 1,
      ttl,
      rdata: Uint8Array.from([...target.split('.').flatMap((l) => [l.length, ...Buffer.from(l)]), 0]),
    });
    const dname = record('moved.test', DNAME, 86_400, 'other.test');
    const dnameSig = { ...rrsig(DNAME, 86_400, 300, NOW_S - 3600, NOW_S + 86_400), name: 'moved.test' };
    const synthesized = record('www.moved.test', CNAME, 86_400, 'www.other.test');
    // Not below the DNAME: an unsigned CNAME elsewhere keeps its TTL (its zone is insecure).
    const elsewhere = record('www.other.test', CNAME, 7200, 'www.plain.test');
    const out = bound([message([dname, dnameSig, synthesized, elsewhere])]);
    expect(ttls(out.messages[0]!.answer)).toEqual([300, 300, 300, 7200]);
    expect(out.lifetime).toBe(300);
  });
});
