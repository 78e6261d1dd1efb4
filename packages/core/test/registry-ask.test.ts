/**
 * Plugins that answer into a sink (ask()): the registry's one record per question, the same
 * fallback rule as resolve(), and a sink that takes one call only.
 */
import { describe, expect, it } from 'vitest';
import { AbortError, DnsCore, MalformedAnswerError, NetworkError } from '@dnscore/core';
import type { AnswerSink, DnsQuery, PluginAnswer, ResolverPlugin } from '@dnscore/core/plugin';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const A = { question: { name: 'goose.feathers', type: 1 } };
const answerA = (address: number[]): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({ ...A, answers: [{ type: 1, rdata: bytes(address) }] }),
});

/** A plugin with ask() only in spirit: resolve() throws, so the core must use ask(). */
function sinkPlugin(name: string, onAsk: (query: DnsQuery, signal: AbortSignal, sink: AnswerSink) => void) {
  const asked: string[] = [];
  const plugin: ResolverPlugin = {
    name,
    priority: 0,
    available: () => true,
    resolve: () => {
      throw new Error('resolve() called on a plugin that has ask()');
    },
    ask(query, signal, sink) {
      asked.push(query.name);
      onAsk(query, signal, sink);
    },
    close() {},
  };
  return { plugin, asked };
}

describe('ResolverRegistry with ask(): nominal', () => {
  it('takes the answer from the sink, later or at once, and never calls resolve()', async () => {
    const later = sinkPlugin('later', (_q, _s, sink) => setTimeout(() => sink.answer(answerA([192, 0, 2, 1])), 1));
    const core = new DnsCore([later.plugin]);
    const result = await core.resolve('goose.feathers', 'A');
    expect([result.records.map((r) => r.data), result.resolver, later.asked]).toEqual([
      ['192.0.2.1'],
      'later',
      ['goose.feathers'],
    ]);
    const atOnce = sinkPlugin('at-once', (_q, _s, sink) => sink.answer(answerA([192, 0, 2, 2])));
    const records = (await new DnsCore([atOnce.plugin]).resolve('goose.feathers', 'A')).records;
    expect(records.map((r) => r.data)).toEqual(['192.0.2.2']);
  });

  it('falls through to the next plugin on a failure, as with resolve()', async () => {
    const failing = sinkPlugin('failing', (_q, _s, sink) => sink.fail(new NetworkError('no route')));
    const next = fakePlugin({ name: 'next', priority: 1, answer: answerA([192, 0, 2, 3]) });
    const result = await new DnsCore([failing.plugin, next]).resolve('goose.feathers', 'A');
    expect([result.resolver, result.records.map((r) => r.data)]).toEqual(['next', ['192.0.2.3']]);
  });

  it('a throw of ask() is a failure of that plugin', async () => {
    const throwing = sinkPlugin('throwing', () => {
      throw new NetworkError('socket refused');
    });
    const next = fakePlugin({ name: 'next', priority: 1, answer: answerA([192, 0, 2, 4]) });
    expect((await new DnsCore([throwing.plugin, next]).resolve('goose.feathers', 'A')).resolver).toBe('next');
  });
});

describe('ResolverRegistry with ask(): off-nominal', () => {
  it('takes only the first call of the sink: a second answer or a late failure changes nothing', async () => {
    let sink: AnswerSink | undefined;
    const twice = sinkPlugin('twice', (_q, _s, s) => {
      sink = s;
    });
    const next = fakePlugin({ name: 'next', priority: 1, answer: answerA([192, 0, 2, 9]) });
    const pending = new DnsCore([twice.plugin, next]).resolve('goose.feathers', 'A');
    sink!.answer(answerA([192, 0, 2, 5]));
    sink!.answer(answerA([192, 0, 2, 6]));
    sink!.fail(new NetworkError('late'));
    const result = await pending;
    expect([result.resolver, result.records.map((r) => r.data), next.calls.length]).toEqual([
      'twice',
      ['192.0.2.5'],
      0,
    ]);
  });

  it('a malformed answer is about that answer: it rejects, the next plugin is not asked', async () => {
    const broken = sinkPlugin('broken', (_q, _s, sink) => sink.answer({ rcode: 0, answer: new Uint8Array([1, 2, 3]) }));
    const next = fakePlugin({ name: 'next', priority: 1, answer: answerA([192, 0, 2, 7]) });
    await expect(new DnsCore([broken.plugin, next]).resolve('goose.feathers', 'A')).rejects.toBeInstanceOf(
      MalformedAnswerError,
    );
    expect(next.calls).toHaveLength(0);
  });

  it("a cancelled caller rejects with AbortError at once, whatever the plugin's sink does later", async () => {
    let sink: AnswerSink | undefined;
    const slow = sinkPlugin('slow', (_q, _s, s) => {
      sink = s;
    });
    const controller = new AbortController();
    const pending = new DnsCore([slow.plugin]).resolve('goose.feathers', 'A', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    sink!.answer(answerA([192, 0, 2, 8]));
  });
});
