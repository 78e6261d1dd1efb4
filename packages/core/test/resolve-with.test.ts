/** DnsCore.resolveWith(): the result handed to a pick as it is made; the promise holds what the pick returns. */
import { describe, expect, it } from 'vitest';
import { DnsCore, InvalidQueryError, withCache, type DnsResult } from '@dnscore/core';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const A = { question: { name: 'goose.feathers', type: 1 } };
const answerA = (address: number[], ttl = 60) => ({
  rcode: 0,
  answer: answerPacket({ ...A, answers: [{ type: 1, ttl, rdata: bytes(address) }] }),
});

function addresses(result: DnsResult): string[] {
  return result.records.map((r) => String(r.data));
}

describe('DnsCore.resolveWith: nominal', () => {
  it('resolves to what the pick returns, from the backend and from a cache hit, one pick per question', async () => {
    const plugin = fakePlugin({ answer: answerA([192, 0, 2, 1]) });
    const core = new DnsCore([withCache(plugin)]);
    const picked: string[] = [];
    const pick = (result: DnsResult): string[] => {
      picked.push(result.resolver);
      return addresses(result);
    };
    expect(await core.resolveWith('goose.feathers', 'A', pick)).toEqual(['192.0.2.1']);
    expect(await core.resolveWith('goose.feathers', 'A', pick)).toEqual(['192.0.2.1']);
    expect([plugin.calls.length, picked.length]).toEqual([1, 2]);
  });

  it('gives the pick the same result resolve() gives', async () => {
    const core = new DnsCore([fakePlugin({ answer: answerA([192, 0, 2, 2], 300) })]);
    const direct = await core.resolve('goose.feathers', 'A');
    const picked = await core.resolveWith('goose.feathers', 'A', (result) => result);
    expect(picked).toEqual(direct);
  });
});

describe('DnsCore.resolveWith: off-nominal', () => {
  it('rejects with what the pick throws, and with the usual errors before any pick', async () => {
    const core = new DnsCore([fakePlugin({ answer: answerA([192, 0, 2, 3]) })]);
    await expect(
      core.resolveWith('goose.feathers', 'A', () => {
        throw new RangeError('not wanted');
      }),
    ).rejects.toThrow(RangeError);
    let picks = 0;
    await expect(core.resolveWith('bad..name', 'A', () => picks++)).rejects.toBeInstanceOf(InvalidQueryError);
    expect(picks).toBe(0);
  });
});
