/**
 * Real DNSSEC on loopback: zones signed with fresh keys, served by nsd, validated by
 * libunbound through UnboundResolver and the core (RFC 4035 section 4.3: secure, insecure,
 * bogus).
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, formatRecord, seededRandom, type DnsResult } from '@dnscore/core';
import { makeQuery, parseMessage, type PluginAnswer } from '@dnscore/core/plugin';
import { ldnsTime, verifyZone } from '../../../test/support/dnssec.js';
import { InsecureAnswerError } from '../src/errors.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import type { UnboundOptions } from '../src/options.js';
import { startRig, type Rig } from './support/rig.js';

let rig: Rig;
const cores: DnsCore[] = [];

beforeAll(async () => {
  rig = await startRig();
});

afterAll(async () => {
  await Promise.all(cores.map((core) => core.close()));
  await rig?.stop();
});

function core(extra: UnboundOptions = {}): DnsCore {
  const dns = new DnsCore([new UnboundResolver(rig.options(extra))], { random: seededRandom(7) });
  cores.push(dns);
  return dns;
}

/**
 * libunbound counts down the TTLs of what it cached: an answer read a second after another
 * question cached it says 3599. A TTL at most AGED_S below the zone's is written as the zone's
 * (any other stays as it is, so a wrong TTL still fails).
 */
const AGED_S = 5;
const ZONE_TTLS = [3600, 600, 300];

function zoneTtl(ttl: number): number {
  return ZONE_TTLS.find((zone) => ttl <= zone && ttl > zone - AGED_S) ?? ttl;
}

function lines(result: DnsResult): string[] {
  return result.records.map((record) => formatRecord({ ...record, ttl: zoneTtl(record.ttl) }));
}

describe('the rig itself (ldns-verify-zone, without libunbound)', () => {
  it('biloxi.test verifies; bogus.test fails on the record changed after signing', () => {
    expect(verifyZone(rig.biloxi.text)).toBeUndefined();
    expect(verifyZone(rig.bogus.text)).toMatch(/sip1\.bogus\.test/);
    expect(rig.biloxi.ds).toMatch(
      new RegExp(`^biloxi\\.test\\.\\s+IN\\s+DS\\s+${rig.biloxi.kskTag} 13 2 [0-9a-f]{64}$`),
    );
  });
});

describe('a signed zone answers secure', () => {
  let dns: DnsCore;
  beforeAll(() => {
    dns = core();
  });

  it('NAPTR, in order then preference', async () => {
    const result = await dns.resolve('biloxi.test', 'NAPTR');
    expect(result).toMatchObject({ rcode: 0, secure: true, bogus: false, whyBogus: undefined, resolver: 'unbound' });
    expect(lines(result)).toEqual([
      'biloxi.test.\t3600\tIN\tNAPTR\t50 50 "s" "SIPS+D2T" "" _sips._tcp.biloxi.test.',
      'biloxi.test.\t3600\tIN\tNAPTR\t90 50 "s" "SIP+D2T" "" _sip._tcp.biloxi.test.',
      'biloxi.test.\t3600\tIN\tNAPTR\t100 50 "s" "SIP+D2U" "" _sip._udp.biloxi.test.',
    ]);
  });

  it('SRV, by priority', async () => {
    const result = await dns.resolve('_sip._udp.biloxi.test', 'SRV');
    expect(result.secure).toBe(true);
    expect(result.records.map((r) => r.data.priority)).toEqual([10, 10, 20]);
    expect(lines(result).sort()).toEqual([
      '_sip._udp.biloxi.test.\t3600\tIN\tSRV\t10 40 5060 sip2.biloxi.test.',
      '_sip._udp.biloxi.test.\t3600\tIN\tSRV\t10 60 5060 sip1.biloxi.test.',
      '_sip._udp.biloxi.test.\t3600\tIN\tSRV\t20 0 5060 backup.biloxi.test.',
    ]);
    // The additional section survives: the targets' addresses, each with its own TTL.
    const addresses = result.additional.filter((r) => r.type === 'A' || r.type === 'AAAA').map(formatRecord);
    expect(addresses.sort()).toEqual([
      'backup.biloxi.test.\t3600\tIN\tA\t192.0.2.20',
      'sip1.biloxi.test.\t3600\tIN\tA\t192.0.2.11',
      'sip1.biloxi.test.\t3600\tIN\tAAAA\t2001:db8::11',
      'sip2.biloxi.test.\t600\tIN\tA\t192.0.2.12',
    ]);
  });

  it('A and AAAA, each record with its own TTL', async () => {
    const a = await dns.resolve('sip1.biloxi.test', 'A');
    expect(a).toMatchObject({ secure: true, canonical: 'sip1.biloxi.test' });
    expect(zoneTtl(a.lowestTtl)).toBe(3600);
    expect(lines(a)).toEqual(['sip1.biloxi.test.\t3600\tIN\tA\t192.0.2.11']);
    const aaaa = await dns.resolve('sip1.biloxi.test', 'AAAA');
    expect(aaaa.secure).toBe(true);
    expect(lines(aaaa)).toEqual(['sip1.biloxi.test.\t3600\tIN\tAAAA\t2001:db8::11']);
    const sip2 = await dns.resolve('sip2.biloxi.test', 'A');
    expect(lines(sip2)).toEqual(['sip2.biloxi.test.\t600\tIN\tA\t192.0.2.12']);
  });

  it('a proven NXDOMAIN (NSEC), with the negative TTL of RFC 2308', async () => {
    const result = await dns.resolve('nope.biloxi.test', 'A');
    expect(result).toMatchObject({
      rcode: 3,
      nxDomain: true,
      secure: true,
      bogus: false,
      records: [],
    });
    expect(zoneTtl(result.negativeTtl)).toBe(300);
  });

  it('a proven NODATA', async () => {
    const result = await dns.resolve('sip1.biloxi.test', 'TXT');
    expect(result).toMatchObject({ rcode: 0, noData: true, secure: true });
    expect(zoneTtl(result.negativeTtl)).toBe(300);
  });

  it('a CNAME: the canonical name is read from the packet', async () => {
    const result = await dns.resolve('www.biloxi.test', 'A');
    expect(result).toMatchObject({ secure: true, canonical: 'sip1.biloxi.test' });
    expect(lines(result)).toEqual(['sip1.biloxi.test.\t3600\tIN\tA\t192.0.2.11']);
  });

  it('names are matched case-insensitively (RFC 4343)', async () => {
    const result = await dns.resolve('SIP1.Biloxi.TEST', 'A');
    expect(result.secure).toBe(true);
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.11']);
  });
});

describe('a zone changed after signing answers bogus', () => {
  it('the altered RRset is bogus with libunbound reason, its data hidden', async () => {
    const result = await core().resolve('sip1.bogus.test', 'A');
    expect(result).toMatchObject({ rcode: 0, secure: false, bogus: true, records: [], additional: [], authority: [] });
    expect(result.whyBogus).toMatch(/^validation failure <sip1\.bogus\.test\. A IN>: .*signature.* from 127\.0\.0\.1/);
  });

  it('the untouched RRsets of the same zone stay secure', async () => {
    const result = await core().resolve('sip1.bogus.test', 'AAAA');
    expect(result).toMatchObject({ secure: true, bogus: false });
    expect(result.records.map((r) => r.data)).toEqual(['2001:db8::31']);
  });

  it('a bogus answer is returned, not thrown, even with requireSecure', async () => {
    const result = await core({ requireSecure: true }).resolve('sip1.bogus.test', 'A');
    expect(result.bogus).toBe(true);
  });
});

describe('an unsigned zone answers insecure', () => {
  it('without an anchor above it', async () => {
    const result = await core().resolve('www.plain.test', 'A');
    expect(result).toMatchObject({ secure: false, bogus: false });
    expect(lines(result)).toEqual(['www.plain.test.\t600\tIN\tA\t192.0.2.80']);
  });

  it('under the default root anchors it is bogus, unless it is a domain-insecure', async () => {
    // The rig serves no signed root: the chain from the root anchors cannot be built.
    const rootAnchored: UnboundOptions = { trustAnchors: undefined };
    const bogus = await core(rootAnchored).resolve('www.plain.test', 'A');
    expect(bogus.bogus).toBe(true);
    expect(bogus.whyBogus).toMatch(/trust anchor \. while building chain of trust/);

    const insecure = await core({ ...rootAnchored, insecureDomains: ['plain.test'] }).resolve('www.plain.test', 'A');
    expect(insecure).toMatchObject({ secure: false, bogus: false });
    expect(insecure.records.map((r) => r.data)).toEqual(['192.0.2.80']);
  });

  it('requireSecure turns it into InsecureAnswerError, which the registry does not pass on', async () => {
    const error = await core({ requireSecure: true })
      .resolve('www.plain.test', 'A')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsecureAnswerError);
    expect(error).toMatchObject({ code: 'DNS_ERR_INSECURE_ANSWER', definite: true });
    expect((error as Error).message).toBe(
      'www.plain.test IN A: the answer is insecure (not validated by DNSSEC) and requireSecure is set',
    );
  });

  it('requireSecure lets secure answers through', async () => {
    const result = await core({ requireSecure: true }).resolve('sip1.biloxi.test', 'A');
    expect(result.secure).toBe(true);
  });

  it('no anchors at all (trustAnchors: []) means no validation', async () => {
    const result = await core({ trustAnchors: [] }).resolve('sip1.bogus.test', 'A');
    expect(result).toMatchObject({ secure: false, bogus: false });
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.66']);
  });

  it('without anchors the iterator alone answers as the validator does: the same packets, RRSIGs too', async () => {
    const questions = [
      ['sip1.biloxi.test', 'A'],
      ['www.biloxi.test', 'A'],
      ['_sip._udp.biloxi.test', 'SRV'],
      ['nope.biloxi.test', 'A'],
      ['sip1.bogus.test', 'A'],
      ['www.plain.test', 'A'],
    ] as const;
    const answers = async (extra: UnboundOptions): Promise<PluginAnswer[]> => {
      const resolver = new UnboundResolver(rig.options({ trustAnchors: [], ...extra }));
      try {
        const signal = new AbortController().signal;
        return await Promise.all(questions.map(([name, type]) => resolver.resolve(makeQuery(name, type), signal)));
      } finally {
        resolver.close();
      }
    };
    const iterator = await answers({});
    const validator = await answers({ options: { 'module-config': 'validator iterator' } });
    expect(iterator.map(unrotated)).toEqual(validator.map(unrotated));
    expect(iterator.map((answer) => [answer.rcode, answer.secure, answer.bogus])).toEqual([
      [0, false, false],
      [0, false, false],
      [0, false, false],
      [3, false, false],
      [0, false, false],
      [0, false, false],
    ]);
    const answerTypes = (answer: PluginAnswer): number[] => parseMessage(answer.answer!).answers.map((r) => r.type);
    expect(iterator.map(answerTypes)).toEqual([[1, 46], [5, 46, 1, 46], [33, 33, 33, 46], [], [1, 46], [1]]);
  });
});

/**
 * An answer with each section's records in one order: libunbound rotates every RRset by the
 * query ID plus the current second (rrset-roundrobin, one setting per process), so two answers
 * a second apart list an SRV RRset in another order.
 */
function unrotated(answer: PluginAnswer) {
  const message = parseMessage(answer.answer!);
  const records = (section: typeof message.answers): string[] =>
    section
      .map((r) => {
        const rdata = Buffer.from(message.packet.subarray(r.rdataOffset, r.rdataOffset + r.rdlength));
        return `${r.name} ${r.type} ${r.class} ${r.ttl} ${rdata.toString('hex')}`;
      })
      .sort();
  return {
    ...answer,
    answer: undefined,
    header: message.header,
    answers: records(message.answers),
    authorities: records(message.authorities),
    additionals: records(message.additionals),
  };
}

describe('signature validity periods (val-override-date)', () => {
  // libunbound allows a clock skew of 10% of the validity period, at most val-sig-skew-max (1 day).
  const twoDays = 2 * 86_400_000;

  it('after the signatures expire the answer is bogus', async () => {
    const later = ldnsTime(new Date(rig.biloxi.expiration.getTime() + twoDays));
    const result = await core({ options: { 'val-override-date': later } }).resolve('sip1.biloxi.test', 'A');
    expect(result).toMatchObject({ bogus: true, records: [] });
    expect(result.whyBogus).toMatch(/signature expired/);
  });

  it('before their inception the answer is bogus too', async () => {
    const earlier = ldnsTime(new Date(rig.biloxi.inception.getTime() - twoDays));
    const result = await core({ options: { 'val-override-date': earlier } }).resolve('sip1.biloxi.test', 'A');
    expect(result.bogus).toBe(true);
    expect(result.whyBogus).toMatch(/signature before inception date/);
  });
});

describe('trust anchors from a file', () => {
  it('a DS in trustAnchorFiles validates like the same text in trustAnchors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dnscore-ta-'));
    try {
      const file = join(dir, 'anchors.ds');
      writeFileSync(file, `${rig.biloxi.ds}\n`);
      const result = await core({ trustAnchors: undefined, trustAnchorFiles: [file] }).resolve('sip1.biloxi.test', 'A');
      expect(result.secure).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an anchor that matches no key of the zone makes its answers bogus', async () => {
    const wrong = rig.biloxi.ds.replace(/[0-9a-f]{64}$/i, '0'.repeat(64));
    const result = await core({ trustAnchors: [wrong] }).resolve('sip1.biloxi.test', 'A');
    expect(result.bogus).toBe(true);
    expect(result.whyBogus).toMatch(/biloxi\.test/);
  });
});
