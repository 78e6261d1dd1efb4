/**
 * Cache poisoning (RFC 5452 section 6, RFC 2181 section 5.4.1): additional data outside the
 * question's domain is never used or cached, a forged answer for another name is refused, a
 * CNAME chain into another zone is asked again instead of trusted, and a negative answer
 * lives only as long as the SOA of a zone that holds the name says.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, MalformedAnswerError, withCache, type DnsQuery } from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes, domain, srvRdata, u32 } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const A = 1;
const CNAME = 5;
const SRV = 33;
const soa = (zone: string, minimum: number) => ({
  name: zone,
  type: 6,
  ttl: 3600,
  rdata: bytes(domain(`ns.${zone}`), domain(`host.${zone}`), u32(1), u32(2), u32(3), u32(4), u32(minimum)),
});

describe('additional-section data', () => {
  it("is used at or below the question's domain, and dropped outside it", async () => {
    const answer = answerPacket({
      question: { name: '_sip._udp.biloxi.example', type: SRV },
      answers: [{ type: SRV, rdata: srvRdata(10, 60, 5060, 'sip1.biloxi.example') }],
      additionals: [
        { name: 'sip1.biloxi.example', type: A, rdata: bytes([203, 0, 113, 11]) },
        { name: 'www.bank.example', type: A, rdata: bytes([6, 6, 6, 6]) },
        { name: 'biloxi.example.evil', type: A, rdata: bytes([6, 6, 6, 7]) },
      ],
    });
    const cached = withCache(fakePlugin({ answer: { rcode: 0, answer } }));
    const core = new DnsCore([cached]);
    for (let i = 0; i < 2; i++) {
      const result = await core.resolve('_sip._udp.biloxi.example', 'SRV');
      expect(result.additional.map((r) => r.name)).toEqual(['sip1.biloxi.example']);
      expect(result.dropped.map((d) => [d.name, d.rule])).toEqual([
        ['www.bank.example', 'out-of-bailiwick'],
        ['biloxi.example.evil', 'out-of-bailiwick'],
      ]);
    }
    expect(cached.stats.hits).toBe(1); // the cached answer still never yields them
  });
});

describe('a forged answer', () => {
  it('for another name is refused and never cached', async () => {
    const forged = {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'victim.example', type: A },
        answers: [{ type: A, rdata: bytes([6, 6, 6, 6]) }],
      }),
    };
    const cached = withCache(fakePlugin({ answer: forged }));
    await expect(new DnsCore([cached]).resolve('goose.example', 'A')).rejects.toBeInstanceOf(MalformedAnswerError);
    expect(cached.stats.size).toBe(0);
  });

  it('records of another owner in the answer section are not the answer', async () => {
    const answer = answerPacket({
      question: { name: 'goose.example', type: A },
      answers: [
        { type: A, rdata: bytes([192, 0, 2, 1]) },
        { name: 'victim.example', type: A, rdata: bytes([6, 6, 6, 6]) },
      ],
    });
    const result = await new DnsCore([fakePlugin({ answer: { rcode: 0, answer } })]).resolve('goose.example', 'A');
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.1']);
  });
});

describe('a CNAME chain', () => {
  /** www.a.example -> x.b.example with a forged A for x.b.example; x.b.example asked alone -> 192.0.2.1. */
  function chainPlugin(secure = false) {
    return fakePlugin({
      answer: (query: DnsQuery): PluginAnswer => {
        if (query.name === 'www.a.example') {
          return {
            rcode: 0,
            secure,
            answer: answerPacket({
              question: { name: 'www.a.example', type: A },
              answers: [
                { type: CNAME, rdata: bytes(domain('x.b.example')) },
                { name: 'x.b.example', type: A, rdata: bytes([6, 6, 6, 6]) },
              ],
            }),
          };
        }
        return {
          rcode: 0,
          answer: answerPacket({
            question: { name: query.name, type: A },
            answers: [{ type: A, rdata: bytes([192, 0, 2, 1]) }],
          }),
        };
      },
    });
  }

  it('into another zone is re-asked, not trusted', async () => {
    const plugin = chainPlugin();
    const result = await new DnsCore([plugin]).resolve('www.a.example', 'A');
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.1']);
    expect(result.canonical).toBe('x.b.example');
    expect(result.query.name).toBe('www.a.example');
    expect(plugin.calls.map((c) => c.query.name)).toEqual(['www.a.example', 'x.b.example']);
  });

  it('that DNSSEC validated is kept as it is', async () => {
    const plugin = chainPlugin(true);
    const result = await new DnsCore([plugin]).resolve('www.a.example', 'A');
    expect(result.records.map((r) => r.data)).toEqual(['6.6.6.6']);
    expect(plugin.calls).toHaveLength(1);
  });

  it('below the question is trusted; to the apex or a sibling it is re-asked', async () => {
    const chainTo = (end: string) =>
      answerPacket({
        question: { name: 'www.a.example', type: A },
        answers: [
          { type: CNAME, rdata: bytes(domain(end)) },
          { name: end, type: A, rdata: bytes([192, 0, 2, 9]) },
        ],
      });
    const below = fakePlugin({ answer: { rcode: 0, answer: chainTo('edge.www.a.example') } });
    expect((await new DnsCore([below]).resolve('www.a.example', 'A')).records.map((r) => r.data)).toEqual([
      '192.0.2.9',
    ]);
    expect(below.calls).toHaveLength(1);
    // The apex may be another zone's (www.a.example can be a zone of its own): asked on its own.
    const apex = fakePlugin({
      answer: (q) =>
        q.name === 'www.a.example'
          ? { rcode: 0, answer: chainTo('a.example') }
          : {
              rcode: 0,
              answer: answerPacket({
                question: { name: q.name, type: A },
                answers: [{ type: A, rdata: bytes([192, 0, 2, 10]) }],
              }),
            },
    });
    expect((await new DnsCore([apex]).resolve('www.a.example', 'A')).records.map((r) => r.data)).toEqual([
      '192.0.2.10',
    ]);
    expect(apex.calls.map((c) => c.query.name)).toEqual(['www.a.example', 'a.example']);
  });

  it('that goes back and forth between zones ends with an error, not a loop', async () => {
    const pingPong = fakePlugin({
      answer: (query) => {
        const next = query.name === 'a.one.example' ? 'b.two.example' : 'a.one.example';
        return {
          rcode: 0,
          answer: answerPacket({
            question: { name: query.name, type: A },
            answers: [{ type: CNAME, rdata: bytes(domain(next)) }],
          }),
        };
      },
    });
    await expect(new DnsCore([pingPong], { maxCnameChain: 4 }).resolve('a.one.example', 'A')).rejects.toThrow(
      /CNAME chains across zones/,
    );
    expect(pingPong.calls).toHaveLength(5);
  });
});

describe('a negative answer', () => {
  it('uses the SOA of a zone that holds the name, and no other', async () => {
    const plugin = fakePlugin({
      answer: (query) => {
        const zone = query.name.endsWith('good.example') ? 'good.example' : 'elsewhere.example';
        return {
          rcode: 3,
          answer: answerPacket({ rcode: 3, question: { name: query.name, type: A }, authorities: [soa(zone, 300)] }),
        };
      },
    });
    const cached = withCache(plugin);
    const core = new DnsCore([cached]);
    expect((await core.resolve('nx.good.example', 'A')).negativeTtl).toBe(300);
    expect((await core.resolve('nx.bad.example', 'A')).negativeTtl).toBe(0);
    await core.resolve('nx.good.example', 'A');
    await core.resolve('nx.bad.example', 'A');
    expect(plugin.calls.map((c) => c.query.name)).toEqual(['nx.good.example', 'nx.bad.example', 'nx.bad.example']);
  });
});
