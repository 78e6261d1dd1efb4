/**
 * The result builder: Asterisk's test_dns.c set_result and add_record cases, ported, and the
 * rules dnscore adds (CNAME chains, question checks, bogus data hidden, negative TTL).
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidResultError, MalformedAnswerError, StateError, makeQuery } from '@dnscore/core';
import { ResultBuilder, buildResult } from '@dnscore/core/plugin';
import { answerPacket, bytes, domain, u32 } from './support/packets.js';

const query = makeQuery('goose.feathers', 'A');
const A = 1;
const CNAME = 5;
const soa = (minimum: number) =>
  bytes(domain('ns1.feathers'), domain('hostmaster.feathers'), u32(1), u32(2), u32(3), u32(4), u32(minimum));

describe('set_result: nominal', () => {
  it.each([
    ['insecure NOERROR', false, false, 0],
    ['secure NOERROR', true, false, 0],
    ['bogus NOERROR', false, true, 0],
    ['insecure NXDOMAIN', false, false, 3],
  ])('resolver_set_result: %s reads back', (_name, secure, bogus, rcode) => {
    const answer = answerPacket({ rcode, answers: [] });
    const result = buildResult(
      query,
      { rcode, secure, bogus, canonical: 'goose.feathers', answer },
      { resolver: 'mock' },
    );
    expect(result).toMatchObject({ rcode, secure, bogus, canonical: 'goose.feathers', resolver: 'mock' });
    expect(Array.from(result.answer)).toEqual(Array.from(answer));
  });

  it('a later setResult replaces the earlier one', () => {
    const builder = new ResultBuilder(query).setResult({ rcode: 3 }).setResult({ rcode: 0, secure: true });
    expect(builder.build()).toMatchObject({ rcode: 0, secure: true });
  });

  it('an answer packet is optional (an empty answer)', () => {
    const result = buildResult(query, { rcode: 3 });
    expect(result.records).toEqual([]);
    expect(result.answer.length).toBe(0);
    expect(result.canonical).toBe('goose.feathers');
  });
});

describe('set_result: off-nominal', () => {
  it('resolver_set_result_off_nominal: secure and bogus together', () => {
    expect(() => new ResultBuilder(query).setResult({ rcode: 0, secure: true, bogus: true })).toThrow(
      InvalidResultError,
    );
  });

  it('resolver_set_result_off_nominal: an empty canonical name', () => {
    expect(() => new ResultBuilder(query).setResult({ rcode: 0, canonical: '' })).toThrow(InvalidResultError);
  });

  it.each([-1, 4096, 1.5])('an rcode of %s', (rcode) => {
    expect(() => new ResultBuilder(query).setResult({ rcode })).toThrow(InvalidResultError);
  });

  it('build() before setResult()', () => {
    expect(() => new ResultBuilder(query).build()).toThrow(StateError);
  });
});

describe('add_record: nominal', () => {
  it('resolver_add_record: an A then an AAAA, both retrievable with their fields', () => {
    const builder = new ResultBuilder(makeQuery('goose.feathers', 'ANY')).setResult({
      rcode: 0,
      canonical: 'goose.feathers',
    });
    expect(builder.addRecord(1, 1, 12345, bytes([127, 0, 0, 1]))).toBe(true);
    expect(builder.addRecord(28, 1, 12345, bytes([...Array(15).fill(0), 1]))).toBe(true);
    const result = builder.build();
    expect(result.records.map((r) => [r.type, r.class, r.ttl, r.data, r.name])).toEqual([
      ['A', 1, 12345, '127.0.0.1', 'goose.feathers'],
      ['AAAA', 1, 12345, '::1', 'goose.feathers'],
    ]);
  });

  it('records added by hand into one RRset with differing TTLs all get its lowest (RFC 2181 section 5.2)', () => {
    const builder = new ResultBuilder(makeQuery('goose.feathers', 'ANY')).setResult({ rcode: 0 });
    builder.addRecord(1, 1, 300, bytes([192, 0, 2, 1]));
    builder.addRecord(28, 1, 500, bytes([...Array(15).fill(0), 1]));
    builder.addRecord(1, 1, 60, bytes([192, 0, 2, 2]));
    expect(builder.build().records.map((r) => [r.type, r.ttl])).toEqual([
      ['A', 60],
      ['AAAA', 500],
      ['A', 60],
    ]);
  });

  it('a record that breaks a rule is dropped, not added', () => {
    const builder = new ResultBuilder(query).setResult({ rcode: 0 });
    expect(builder.addRecord(1, 1, 1, bytes([1, 2, 3]))).toBe(false);
    expect(builder.build().dropped).toEqual([expect.objectContaining({ type: 'A', rule: 'rdlength' })]);
  });
});

describe('add_record: off-nominal (resolver_add_record_off_nominal)', () => {
  const data = bytes([127, 0, 0, 1]);
  it('before a result is set', () => {
    expect(() => new ResultBuilder(query).addRecord(1, 1, 1, data)).toThrow(StateError);
  });
  it.each([
    ['type -1', -1, 1, 1, data],
    ['type 65536', 65536, 1, 1, data],
    ['class -1', 1, -1, 1, data],
    ['class 65536', 1, 65536, 1, data],
    ['TTL -1', 1, 1, -1, data],
    ['no data', 1, 1, 1, undefined as unknown as Uint8Array],
    ['empty data', 1, 1, 1, new Uint8Array(0)],
  ])('%s', (_name, type, rrclass, ttl, rdata) => {
    const builder = new ResultBuilder(query).setResult({ rcode: 0 });
    expect(() => builder.addRecord(type, rrclass, ttl, rdata)).toThrow(InvalidArgumentError);
  });
});

describe('answers parsed from the packet', () => {
  it("keeps only records of the queried type owned by the end of the CNAME chain, with the RRset's lowest TTL", () => {
    const answer = answerPacket({
      answers: [
        { type: CNAME, ttl: 50, rdata: bytes(domain('real.feathers')) },
        { name: 'real.feathers', type: A, ttl: 30, rdata: bytes([192, 0, 2, 1]) },
        { name: 'real.feathers', type: A, ttl: 0, rdata: bytes([192, 0, 2, 2]) },
        { name: 'elsewhere.example', type: A, ttl: 5, rdata: bytes([6, 6, 6, 6]) },
        { name: 'real.feathers', type: 28, ttl: 5, rdata: bytes(Array(16).fill(0)) },
      ],
    });
    const result = buildResult(query, { rcode: 0, answer });
    expect(result.canonical).toBe('real.feathers');
    // RFC 2181 section 5.2: an RRset's TTLs differ: all are treated as its lowest (here 0, "do not keep").
    expect(result.records.map((r) => [r.name, r.data, r.ttl])).toEqual([
      ['real.feathers', '192.0.2.1', 0],
      ['real.feathers', '192.0.2.2', 0],
    ]);
    expect(result.lowestTtl).toBe(0);
  });

  it('gives the records of one RRset whose TTLs differ its lowest, in every section (RFC 2181 section 5.2)', () => {
    const rrsig = (ttl: number, last: number) => ({ type: 46, ttl, rdata: bytes([0, 1, 8, 2, 0, 0, 0, last]) });
    const answer = answerPacket({
      question: { name: 'goose.feathers', type: 255 },
      answers: [
        { type: A, ttl: 300, rdata: bytes([192, 0, 2, 1]) },
        { type: 28, ttl: 500, rdata: bytes(Array(16).fill(0)) },
        { type: A, ttl: 60, rdata: bytes([192, 0, 2, 2]) },
        // RFC 4034 section 3: each RRSIG has the TTL of the RRset it covers; they are no RRset together.
        rrsig(300, 1),
        rrsig(60, 2),
      ],
      authorities: [
        { name: 'feathers', type: 2, ttl: 900, rdata: bytes(domain('ns1.feathers')) },
        { name: 'feathers', type: 2, ttl: 100, rdata: bytes(domain('ns2.feathers')) },
      ],
      additionals: [
        { name: 'ns1.goose.feathers', type: A, ttl: 70, rdata: bytes([192, 0, 2, 53]) },
        { name: 'ns2.goose.feathers', type: A, ttl: 80, rdata: bytes([192, 0, 2, 54]) },
      ],
    });
    const result = buildResult(makeQuery('goose.feathers', 'ANY'), { rcode: 0, answer });
    expect(result.records.map((r) => [r.type, r.ttl])).toEqual([
      ['A', 60],
      ['AAAA', 500],
      ['A', 60],
      ['RRSIG', 300],
      ['RRSIG', 60],
    ]);
    expect(result.authority.map((r) => [r.data, r.ttl])).toEqual([
      ['ns1.feathers', 100],
      ['ns2.feathers', 100],
    ]);
    // Two owners, two RRsets: each keeps its own.
    expect(result.additional.map((r) => [r.name, r.ttl])).toEqual([
      ['ns1.goose.feathers', 70],
      ['ns2.goose.feathers', 80],
    ]);
  });

  it("caps the TTLs of records reached through a CNAME chain by the chain's smallest, as c-ares does", () => {
    const answer = answerPacket({
      answers: [
        { type: CNAME, ttl: 40, rdata: bytes(domain('middle.feathers')) },
        { name: 'middle.feathers', type: CNAME, ttl: 10, rdata: bytes(domain('real.feathers')) },
        { name: 'real.feathers', type: A, ttl: 300, rdata: bytes([192, 0, 2, 1]) },
        { name: 'real.feathers', type: A, ttl: 300, rdata: bytes([192, 0, 2, 2]) },
      ],
    });
    const result = buildResult(query, { rcode: 0, answer });
    expect(result.records.map((r) => [r.data, r.ttl])).toEqual([
      ['192.0.2.1', 10],
      ['192.0.2.2', 10],
    ]);
    expect(result.lowestTtl).toBe(10);
    expect(result.chainTtl).toBe(10);
    // A cached copy ages from the capped TTL.
    const hit = buildResult(query, { rcode: 0, answer, age: 3 });
    expect(hit.records.map((r) => r.ttl)).toEqual([7, 7]);
    expect(hit.chainTtl).toBe(7);
    // The chain's end asked on its own (a chain into another zone): its answer is capped by the chain too.
    const end = buildResult(makeQuery('real.feathers', 'A'), {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'real.feathers', type: A },
        answers: [{ name: 'real.feathers', type: A, ttl: 300, rdata: bytes([192, 0, 2, 9]) }],
      }),
    });
    expect(end.chainTtl).toBeUndefined();
    const whole = end.answering(query, result);
    expect(whole.records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.9', 10]]);
    expect([whole.lowestTtl, whole.chainTtl]).toEqual([10, 10]);
    expect(buildResult(query, { rcode: 0, answer: answerPacket({ answers: [] }) }).chainTtl).toBeUndefined();
    // The chain's end does not exist: the negative answer holds no longer than the chain either.
    const nx = answerPacket({
      rcode: 3,
      answers: [{ type: CNAME, ttl: 20, rdata: bytes(domain('gone.feathers')) }],
      authorities: [{ name: 'feathers', type: 6, ttl: 900, rdata: soa(300) }],
    });
    expect(buildResult(query, { rcode: 3, answer: nx }).negativeTtl).toBe(20);
    expect(buildResult(query, { rcode: 3, answer: nx, age: 5 }).negativeTtl).toBe(15);
  });

  it('accepts the plugin canonical name when it matches the chain, in any case', () => {
    const answer = answerPacket({ answers: [{ type: CNAME, rdata: bytes(domain('real.feathers')) }] });
    expect(buildResult(query, { rcode: 0, canonical: 'REAL.feathers.', answer }).canonical).toBe('REAL.feathers.');
  });

  it('refuses a canonical name that is not the end of the chain', () => {
    const answer = answerPacket({ answers: [{ type: CNAME, rdata: bytes(domain('real.feathers')) }] });
    expect(() => buildResult(query, { rcode: 0, canonical: 'goose.feathers', answer })).toThrow(InvalidResultError);
  });

  it('gives lowestTtl 0 for NXDOMAIN and the negative TTL from the SOA (RFC 2308)', () => {
    const answer = answerPacket({ rcode: 3, authorities: [{ name: 'feathers', type: 6, ttl: 900, rdata: soa(300) }] });
    const result = buildResult(query, { rcode: 3, answer });
    expect(result.nxDomain).toBe(true);
    expect(result.lowestTtl).toBe(0);
    expect(result.negativeTtl).toBe(300);
    expect(buildResult(query, { rcode: 3, answer, age: 100 }).negativeTtl).toBe(200);
  });

  it('says NODATA for NOERROR without records of the type', () => {
    const answer = answerPacket({ authorities: [{ name: 'feathers', type: 6, ttl: 60, rdata: soa(300) }] });
    const result = buildResult(query, { rcode: 0, answer });
    expect(result.noData).toBe(true);
    expect(result.negativeTtl).toBe(60);
  });

  it("never presents a bogus answer's data as usable", () => {
    const answer = answerPacket({
      answers: [{ type: A, rdata: bytes([6, 6, 6, 6]) }],
      additionals: [{ name: 'x.feathers', type: A, rdata: bytes([6, 6, 6, 6]) }],
    });
    const result = buildResult(query, { rcode: 0, bogus: true, whyBogus: 'signature expired', answer });
    expect(result.bogus).toBe(true);
    expect(result.whyBogus).toBe('signature expired');
    expect(result.records).toEqual([]);
    expect(result.additional).toEqual([]);
    expect(result.lowestTtl).toBe(0);
  });

  it('is immutable', () => {
    const result = buildResult(query, {
      rcode: 0,
      answer: answerPacket({ answers: [{ type: A, rdata: bytes([1, 2, 3, 4]) }] }),
    });
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.records)).toBe(true);
    expect(() => (result.records as unknown[]).push(1)).toThrow();
    result.answer[0] = 0xff;
    expect(result.answer[0]).toBe(0);
  });
});

describe('answers parsed from the packet: off-nominal', () => {
  it('refuses an answer for another question', () => {
    const answer = answerPacket({ question: { name: 'other.feathers', type: A } });
    expect(() => buildResult(query, { rcode: 0, answer })).toThrow(MalformedAnswerError);
    const wrongType = answerPacket({ question: { name: 'goose.feathers', type: 28 } });
    expect(() => buildResult(query, { rcode: 0, answer: wrongType })).toThrow(/another question/);
  });

  it('refuses a packet that is not a response', () => {
    expect(() => buildResult(query, { rcode: 0, answer: answerPacket({ flags: 0 }) })).toThrow(/not a response/);
  });

  it('refuses a malformed packet with the offset', () => {
    const packet = answerPacket({ answers: [{ type: A, rdata: bytes([1, 2, 3, 4]) }] }).slice(0, -2);
    try {
      buildResult(query, { rcode: 0, answer: packet });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MalformedAnswerError);
      expect((error as MalformedAnswerError).offset).toBeGreaterThan(12);
    }
  });

  it('refuses a CNAME loop', () => {
    const answer = answerPacket({
      answers: [
        { type: CNAME, rdata: bytes(domain('b.feathers')) },
        { name: 'b.feathers', type: CNAME, rdata: bytes(domain('goose.feathers')) },
      ],
    });
    expect(() => buildResult(query, { rcode: 0, answer })).toThrow(/CNAME chain longer than 16/);
  });

  it('bounds the CNAME chain by an option', () => {
    const chain = [...Array(4)].map((_, i) => ({
      name: i === 0 ? undefined : `c${i}.feathers`,
      type: CNAME,
      rdata: bytes(domain(`c${i + 1}.feathers`)),
    }));
    const answer = answerPacket({ answers: chain });
    expect(() => buildResult(query, { rcode: 0, answer }, { maxCnameChain: 3 })).toThrow(MalformedAnswerError);
    expect(buildResult(query, { rcode: 0, answer }, { maxCnameChain: 4 }).canonical).toBe('c4.feathers');
  });

  it('keeps the other records when one is invalid, and says why', () => {
    const answer = answerPacket({
      answers: [
        { type: A, rdata: bytes([1, 2, 3]) },
        { type: A, rdata: bytes([1, 2, 3, 4]) },
      ],
    });
    const result = buildResult(query, { rcode: 0, answer });
    expect(result.records.map((r) => r.data)).toEqual(['1.2.3.4']);
    expect(result.dropped).toEqual([
      {
        section: 'answer',
        name: 'goose.feathers',
        type: 'A',
        rule: 'rdlength',
        reason: 'A RDATA: IPv4 address needs 4 bytes, 3 left',
      },
    ]);
  });

  it('drops an invalid additional record with its section', () => {
    const answer = answerPacket({ additionals: [{ name: 'x.feathers', type: 28, rdata: bytes([1]) }] });
    expect(buildResult(query, { rcode: 0, answer }).dropped).toEqual([
      expect.objectContaining({ section: 'additional', type: 'AAAA' }),
    ]);
  });

  it('refuses a record with a wrong class in the answer (it is not part of it)', () => {
    const answer = answerPacket({ answers: [{ type: A, class: 3, rdata: bytes([1, 2, 3, 4]) }] });
    expect(buildResult(query, { rcode: 0, answer }).records).toEqual([]);
  });
});
