/** SharedAnswers: identical questions in flight asked once, each caller a sink of the shared answer. */
import { describe, expect, it } from 'vitest';
import { NEVER_ABORTED } from '../src/abort.js';
import { AbortError, StateError } from '../src/errors.js';
import { SharedAnswer, SharedAnswers } from '../src/shared-answers.js';
import type { AnswerSink } from '../src/resolver-plugin.js';

/** A caller: what it was handed, in order. */
function caller(name: string, log: string[]): AnswerSink<string> {
  return {
    answer: (value) => log.push(`${name}: ${value}`),
    fail: (error) => log.push(`${name} failed: ${(error as Error).name} ${(error as Error).message}`),
  };
}

const create = (): SharedAnswer<string> => new SharedAnswer<string>();

/** A table, the log its callers write, and a start() that keeps each shared answer it is given. */
function recorded() {
  const started: SharedAnswer<string>[] = [];
  return {
    table: new SharedAnswers<string>(),
    log: [] as string[],
    started,
    start: (shared: SharedAnswer<string>): void => void started.push(shared),
  };
}

describe('SharedAnswers, nominal', () => {
  it('shares one query, hands every caller its value once, and leaves the table when settled', () => {
    const { table, log, started, start } = recorded();
    const joined = [
      table.join('q', NEVER_ABORTED, caller('a', log), create, start),
      table.join('q', NEVER_ABORTED, caller('b', log), create, start),
    ];
    expect([joined, started.length, table.size, started[0]!.settled]).toEqual([[false, true], 1, 1, false]);
    started[0]!.answer('answer');
    started[0]!.answer('ignored');
    started[0]!.fail(new Error('ignored too'));
    expect([started[0]!.settled, table.size, log]).toEqual([true, 0, ['a: answer', 'b: answer']]);
    table.join('q', NEVER_ABORTED, caller('c', log), create, start);
    expect(started.length).toBe(2);
    started[1]!.fail(new StateError('failed'));
    expect([log.at(-1), table.size]).toEqual(['c failed: StateError failed', 0]);
  });

  it('keeps no entry for a query settled at once, or whose start threw', () => {
    const table = new SharedAnswers<string>();
    const log: string[] = [];
    table.join('q', NEVER_ABORTED, caller('now', log), create, (shared) => shared.answer('at once'));
    expect(table.size).toBe(0);
    table.join('q', NEVER_ABORTED, caller('thrown', log), create, () => {
      throw new StateError('no socket');
    });
    expect([table.size, log]).toEqual([0, ['now: at once', 'thrown failed: StateError no socket']]);
  });
});

describe('SharedAnswers, off-nominal', () => {
  it('a caller that throws does not keep the answer from the callers after it; its error is thrown after', () => {
    for (const settle of ['answer', 'fail'] as const) {
      const { table, log, started, start } = recorded();
      const broken = new StateError('a broken caller');
      table.join('q', NEVER_ABORTED, caller('a', log), create, start);
      table.join(
        'q',
        NEVER_ABORTED,
        {
          answer: () => {
            throw broken;
          },
          fail: () => {
            throw broken;
          },
        },
        create,
        start,
      );
      table.join('q', NEVER_ABORTED, caller('c', log), create, start);
      const settling = (): void =>
        settle === 'answer' ? started[0]!.answer('answer') : started[0]!.fail(new StateError('no answer'));
      expect(settling).toThrow(broken);
      const told =
        settle === 'answer'
          ? ['a: answer', 'c: answer']
          : ['a failed: StateError no answer', 'c failed: StateError no answer'];
      expect([log, table.size, started[0]!.settled]).toEqual([told, 0, true]);
    }
  });

  it('a caller that cancels leaves at once; the query is cancelled only when its last caller leaves', () => {
    const table = new SharedAnswers<string>();
    const log: string[] = [];
    let shared: SharedAnswer<string> | undefined;
    const first = new AbortController();
    const second = new AbortController();
    table.join('q', first.signal, caller('a', log), create, (s) => {
      shared = s;
    });
    table.join('q', second.signal, caller('b', log), create, () => {});
    first.abort(new Error('a gave up'));
    expect([log, shared!.aborted, table.size]).toEqual([['a failed: AbortError The operation was aborted'], false, 1]);
    second.abort(new Error('b gave up'));
    expect([log.length, shared!.aborted, (shared!.reason as Error).message, table.size]).toEqual([
      2,
      true,
      'b gave up',
      0,
    ]);
    // The backend settles it after the cancel: nobody is left to hear it.
    shared!.fail(new AbortError());
    expect(log.length).toBe(2);
  });

  it('a caller that stays still gets the answer after another one left', () => {
    const table = new SharedAnswers<string>();
    const log: string[] = [];
    let shared: SharedAnswer<string> | undefined;
    const leaving = new AbortController();
    table.join('q', leaving.signal, caller('a', log), create, (s) => {
      shared = s;
    });
    table.join('q', NEVER_ABORTED, caller('b', log), create, () => {});
    leaving.abort();
    shared!.answer('late');
    expect([log, shared!.aborted]).toEqual([['a failed: AbortError The operation was aborted', 'b: late'], false]);
  });

  it('an aborted signal fails the caller at once and starts nothing', () => {
    const table = new SharedAnswers<string>();
    const log: string[] = [];
    let starts = 0;
    table.join('q', AbortSignal.abort(), caller('a', log), create, () => void starts++);
    expect([log, starts, table.size]).toEqual([['a failed: AbortError The operation was aborted'], 0, 0]);
  });

  it('abortAll cancels every shared query with the reason', () => {
    const table = new SharedAnswers<string>();
    const log: string[] = [];
    const queries: SharedAnswer<string>[] = [];
    for (const key of ['x', 'y'])
      table.join(key, NEVER_ABORTED, caller(key, log), create, (s) => {
        queries.push(s);
        s.addEventListener('abort', () => s.fail(s.reason));
      });
    const closed = new StateError('closed');
    table.abortAll(closed);
    expect([queries.map((q) => [q.aborted, q.reason]), log, table.size]).toEqual([
      [
        [true, closed],
        [true, closed],
      ],
      ['x failed: StateError closed', 'y failed: StateError closed'],
      0,
    ]);
  });
});

describe('SharedAnswers, more than one question or caller', () => {
  it('keeps different questions apart, and hands a failure to every caller of one', () => {
    const { table, log, started, start } = recorded();
    table.join('a', NEVER_ABORTED, caller('a1', log), create, start);
    table.join('b', NEVER_ABORTED, caller('b1', log), create, start);
    table.join('a', NEVER_ABORTED, caller('a2', log), create, start);
    expect([started.length, table.size]).toEqual([2, 2]);
    started[0]!.fail(new StateError('timeout'));
    expect([log, table.size, table.has('a'), table.has('b')]).toEqual([
      ['a1 failed: StateError timeout', 'a2 failed: StateError timeout'],
      1,
      false,
      true,
    ]);
  });

  it('holds one abort listener on a signal shared by 5,000 callers, none once settled', async () => {
    const { getEventListeners } = (await import('node:events')).EventEmitter;
    const table = new SharedAnswers<string>();
    const log: string[] = [];
    let shared: SharedAnswer<string> | undefined;
    const callers = new AbortController();
    for (let i = 0; i < 5_000; i++)
      table.join('q', callers.signal, caller(`c${i}`, log), create, (s) => {
        shared = s;
      });
    expect(getEventListeners(callers.signal, 'abort')).toHaveLength(1);
    shared!.answer('answer');
    expect([log.length, log[4_999], getEventListeners(callers.signal, 'abort')]).toEqual([5_000, 'c4999: answer', []]);
  });
});
