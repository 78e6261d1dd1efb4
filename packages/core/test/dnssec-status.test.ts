/**
 * A DNSSEC status is never better than what was validated: the one rule (weakestStatus), the
 * CNAME chain re-asked across zones, a bogus answer whatever its bytes say, the cache (miss and
 * hit), and zones in front of a validating backend. The plugins here are fakes standing for
 * a validating backend (secure/bogus flags) and a non-validating one behind it.
 */
import { describe, expect, it } from 'vitest';
import {
  DnsCore,
  DnsResult,
  Ede,
  MalformedAnswerError,
  ZoneResolver,
  dnssecStatus,
  edeName,
  flagsOf,
  weakestStatus,
  withCache,
  type DnsQuery,
  type DnssecStatus,
  type ResolverPlugin,
} from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes, domain, u32 } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const A = 1;
const CNAME = 5;
const SOA = 6;

describe('weakestStatus: the one rule', () => {
  it.each<[DnssecStatus[], DnssecStatus]>([
    [['secure'], 'secure'],
    [['secure', 'secure', 'secure'], 'secure'],
    [['secure', 'insecure'], 'insecure'],
    [['insecure', 'secure'], 'insecure'],
    [['secure', 'bogus'], 'bogus'],
    [['insecure', 'bogus'], 'bogus'],
    [['bogus', 'secure'], 'bogus'],
    [['insecure', 'insecure'], 'insecure'],
    [[], 'insecure'],
  ])('%j -> %s', (parts, expected) => {
    expect(weakestStatus(...parts)).toBe(expected);
  });

  it('reads flags: secure and bogus together count as bogus, nothing set as insecure', () => {
    expect(dnssecStatus({ secure: true, bogus: true })).toBe('bogus');
    expect(dnssecStatus({})).toBe('insecure');
    expect(dnssecStatus({ secure: true })).toBe('secure');
    expect(weakestStatus({ secure: true }, { secure: false, bogus: false })).toBe('insecure');
    expect(flagsOf('bogus')).toEqual({ secure: false, bogus: true });
    expect(flagsOf('secure')).toEqual({ secure: true, bogus: false });
  });

  it('names RFC 8914 INFO-CODEs', () => {
    expect([6, 7, 8, 9, 10, 1, 2].map(edeName)).toEqual([
      'DNSSEC Bogus',
      'Signature Expired',
      'Signature Not Yet Valid',
      'DNSKEY Missing',
      'RRSIGs Missing',
      'Unsupported DNSKEY Algorithm',
      'Unsupported DS Digest Type',
    ]);
    expect(edeName(4000)).toBe('EDE 4000');
  });
});

/** A CNAME from alias.insecure.example to `target`, with a forged A for the target beside it. */
function chainAnswer(target: string, status: DnssecStatus): PluginAnswer {
  return {
    rcode: 0,
    ...flagsOf(status),
    ...(status === 'bogus' ? { whyBogus: 'validation failure <alias.insecure.example. A IN>: no signatures' } : {}),
    answer: answerPacket({
      question: { name: 'alias.insecure.example', type: A },
      answers: [
        { type: CNAME, rdata: bytes(domain(target)) },
        { name: target, type: A, rdata: bytes([6, 6, 6, 6]) },
      ],
    }),
  };
}

/** The chain's end asked alone: an A record, NXDOMAIN with an SOA, or bogus. */
function endAnswer(query: DnsQuery, status: DnssecStatus, nxdomain = false): PluginAnswer {
  const soa = {
    name: 'secure.example',
    type: SOA,
    ttl: 300,
    rdata: bytes(domain('ns1.secure.example'), domain('h.secure.example'), u32(1), u32(2), u32(3), u32(4), u32(60)),
  };
  return {
    rcode: nxdomain ? 3 : 0,
    ...flagsOf(status),
    ...(status === 'bogus'
      ? { whyBogus: `validation failure <${query.name}. A IN>: signature expired`, ede: Ede.SIGNATURE_EXPIRED }
      : {}),
    answer: answerPacket({
      question: { name: query.name, type: A },
      ...(nxdomain ? { authorities: [soa] } : { answers: [{ type: A, rdata: bytes([192, 0, 2, 80]) }] }),
    }),
  };
}

/** A validating backend: the chain with `chain` status, the end with `end` status. */
function validating(chain: DnssecStatus, end: DnssecStatus, nxdomain = false) {
  return fakePlugin({
    name: 'unbound',
    priority: 100,
    answer: (query) =>
      query.name === 'alias.insecure.example'
        ? chainAnswer('www.secure.example', chain)
        : endAnswer(query, end, nxdomain),
  });
}

/** A non-validating backend behind: it would answer anything with forged data. */
function forger() {
  return fakePlugin({
    name: 'system',
    priority: 200,
    answer: (query) => ({
      rcode: 0,
      answer: answerPacket({
        question: { name: query.name, type: query.type },
        answers: [{ type: A, rdata: bytes([6, 6, 6, 6]) }],
      }),
    }),
  });
}

describe('a CNAME chain re-asked across zones is no more secure than its weakest link', () => {
  const cases: [string, DnssecStatus, DnssecStatus, boolean, DnssecStatus, string[]][] = [
    // chain, end, NXDOMAIN end, expected status, expected addresses
    ['insecure -> secure', 'insecure', 'secure', false, 'insecure', ['192.0.2.80']],
    ['insecure -> nonexistent in a secure zone', 'insecure', 'secure', true, 'insecure', []],
    ['insecure -> insecure', 'insecure', 'insecure', false, 'insecure', ['192.0.2.80']],
    ['insecure -> bogus', 'insecure', 'bogus', false, 'bogus', []],
  ];
  for (const cached of [false, true]) {
    describe(cached ? 'through a cache, miss then hit' : 'without a cache', () => {
      it.each(cases)('%s', async (_name, chain, end, nxdomain, expected, addresses) => {
        const backend = validating(chain, end, nxdomain);
        const behind = forger();
        const core = new DnsCore([cached ? withCache(backend) : backend, behind]);
        for (let round = 0; round < (cached ? 2 : 1); round++) {
          const result = await core.resolve('alias.insecure.example', 'A');
          expect(result.dnssec).toBe(expected);
          expect(result.secure).toBe(expected === 'secure');
          expect(result.bogus).toBe(expected === 'bogus');
          expect(result.canonical).toBe('www.secure.example');
          expect(result.query.name).toBe('alias.insecure.example');
          expect(result.records.map((r) => r.data)).toEqual(addresses);
          expect(result.rcode).toBe(nxdomain ? 3 : 0);
          if (expected === 'bogus') {
            expect(result.whyBogus).toBe('validation failure <www.secure.example. A IN>: signature expired');
            expect(result.ede).toBe(Ede.SIGNATURE_EXPIRED);
            expect(result.negativeTtl).toBe(0);
          } else {
            expect(result.whyBogus).toBeUndefined();
          }
        }
        // Asked once each (the second round is two cache hits), never the backend behind.
        expect(backend.calls.map((c) => c.query.name)).toEqual(['alias.insecure.example', 'www.secure.example']);
        expect(behind.calls).toHaveLength(0);
      });
    });
  }

  it('secure -> secure: validated link by link by the backend, kept without a re-ask', async () => {
    const backend = validating('secure', 'insecure');
    const result = await new DnsCore([backend]).resolve('alias.insecure.example', 'A');
    expect(result.dnssec).toBe('secure');
    expect(result.records.map((r) => r.data)).toEqual(['6.6.6.6']);
    expect(backend.calls).toHaveLength(1);
  });

  it('secure -> bogus: the backend says bogus for the whole chain; no data, no re-ask, no fallback', async () => {
    const backend = validating('bogus', 'secure');
    const behind = forger();
    const result = await new DnsCore([backend, behind]).resolve('alias.insecure.example', 'A');
    expect(result).toMatchObject({ dnssec: 'bogus', bogus: true, secure: false, records: [], ede: Ede.DNSSEC_BOGUS });
    expect(backend.calls).toHaveLength(1);
    expect(behind.calls).toHaveLength(0);
  });

  it('a chain of three zones: the insecure middle link makes the end insecure', async () => {
    const backend = fakePlugin({
      answer: (query) => {
        if (query.name === 'a.one.example')
          return { ...chainAnswerFor('a.one.example', 'b.two.example'), secure: false };
        if (query.name === 'b.two.example')
          return { ...chainAnswerFor('b.two.example', 'c.three.example'), secure: false };
        return endAnswer(query, 'secure');
      },
    });
    const result = await new DnsCore([backend]).resolve('a.one.example', 'A');
    expect(result.dnssec).toBe('insecure');
    expect(result.canonical).toBe('c.three.example');
    expect(backend.calls.map((c) => c.query.name)).toEqual(['a.one.example', 'b.two.example', 'c.three.example']);
  });
});

function chainAnswerFor(owner: string, target: string): PluginAnswer {
  return {
    rcode: 0,
    answer: answerPacket({
      question: { name: owner, type: A },
      answers: [{ type: CNAME, rdata: bytes(domain(target)) }],
    }),
  };
}

describe('a bogus answer is a bogus result whatever its bytes, and ends resolution', () => {
  const question = { name: 'www.secure.example', type: A };
  // name, packet, whether a cache can keep it (it must read the question and TTLs to)
  const broken: [string, Uint8Array, boolean][] = [
    [
      'a CNAME with one octet left over (the attack of issue 17)',
      answerPacket({ question, answers: [{ type: CNAME, rdata: bytes(domain('evil.example'), [0]) }] }),
      true,
    ],
    ['three bytes', bytes([1, 2, 3]), false],
    ['an answer to another question', answerPacket({ question: { name: 'other.example', type: A } }), false],
    [
      'a CNAME loop longer than maxCnameChain',
      answerPacket({
        question,
        answers: [
          { type: CNAME, rdata: bytes(domain('loop.secure.example')) },
          { name: 'loop.secure.example', type: CNAME, rdata: bytes(domain('www.secure.example')) },
        ],
      }),
      true,
    ],
    ['not a response (QR clear)', answerPacket({ question, flags: 0 }), true],
  ];
  for (const cached of [false, true]) {
    it.each(broken)(`${cached ? 'cached' : 'uncached'}: %s`, async (_name, packet, cacheable) => {
      const backend = fakePlugin({
        name: 'unbound',
        priority: 100,
        answer: { rcode: 0, bogus: true, whyBogus: 'validation failure <www.secure.example. A IN>: x', answer: packet },
      });
      const behind = forger();
      const core = new DnsCore([cached ? withCache(backend) : backend, behind]);
      const rounds = cached ? 3 : 1;
      for (let round = 0; round < rounds; round++) {
        const result = await core.resolve('www.secure.example', 'A');
        expect(result).toMatchObject({
          resolver: 'unbound',
          bogus: true,
          secure: false,
          records: [],
          authority: [],
          additional: [],
          ede: Ede.DNSSEC_BOGUS,
          canonical: 'www.secure.example',
          whyBogus: 'validation failure <www.secure.example. A IN>: x',
        });
      }
      // A packet the cache cannot read is not kept: the validating backend is asked again.
      expect(backend.calls).toHaveLength(cached && !cacheable ? rounds : 1);
      expect(behind.calls).toHaveLength(0);
    });
  }

  it('a bogus answer with an unreadable canonical name is still bogus', async () => {
    const backend = fakePlugin({ answer: { rcode: 0, bogus: true, canonical: '' } });
    const result = await new DnsCore([backend, forger()]).resolve('www.secure.example', 'A');
    expect(result).toMatchObject({ bogus: true, canonical: 'www.secure.example', whyBogus: 'validation failed' });
  });
});

describe('an answer that cannot be used is a definite error: no other backend is asked', () => {
  for (const cached of [false, true]) {
    it(`${cached ? 'cached' : 'uncached'}: an insecure malformed answer`, async () => {
      const packet = answerPacket({
        question: { name: 'www.secure.example', type: A },
        answers: [{ type: CNAME, rdata: bytes(domain('evil.example'), [0]) }],
      });
      const backend = fakePlugin({ name: 'unbound', priority: 100, answer: { rcode: 0, answer: packet } });
      const behind = forger();
      const core = new DnsCore([cached ? withCache(backend, { maxTtl: 60 }) : backend, behind]);
      for (let round = 0; round < 2; round++) {
        await expect(core.resolve('www.secure.example', 'A')).rejects.toBeInstanceOf(MalformedAnswerError);
      }
      expect(behind.calls).toHaveLength(0);
    });
  }
});

describe('zones in front of a validating backend', () => {
  const ZONE = `$ORIGIN local.example.
$TTL 300
@      IN SOA ns hostmaster 1 7200 900 1209600 300
       IN NS  ns
ns     IN A   192.0.2.53
alias  IN CNAME www.secure.example.
`;
  function core(): { core: DnsCore; backend: ResolverPlugin & { calls: unknown[] } } {
    const backend = fakePlugin({ name: 'unbound', priority: 100, answer: (query) => endAnswer(query, 'secure') });
    return { core: new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] }), withCache(backend)]), backend };
  }

  it('a zone CNAME (never validated) to a name the backend validates is insecure', async () => {
    const { core: dns, backend } = core();
    for (let round = 0; round < 2; round++) {
      const result = await dns.resolve('alias.local.example', 'A');
      expect(result.dnssec).toBe('insecure');
      expect(result.records.map((r) => r.data)).toEqual(['192.0.2.80']);
    }
    expect(backend.calls).toHaveLength(1);
    // The name the backend answers alone stays as validated.
    expect((await dns.resolve('www.secure.example', 'A')).dnssec).toBe('secure');
  });
});

describe('DnsResult itself', () => {
  it('made bogus by hand: no data, secure false, EDE 6 when none was given', async () => {
    const good = await new DnsCore([forger()]).resolve('www.secure.example', 'A');
    expect(good.records).toHaveLength(1);
    const forged = new DnsResult({ ...good, answer: good.answer, secure: true, bogus: true, whyBogus: 'by hand' });
    expect(forged).toMatchObject({ secure: false, bogus: true, dnssec: 'bogus', ede: 6, records: [], negativeTtl: 0 });
  });
});
