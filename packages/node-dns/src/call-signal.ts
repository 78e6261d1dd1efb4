/**
 * One signal for a call from the caller's signals and a timeout of our own. A warm call with
 * neither makes no AbortController and no timer at all (the core's cache hit is then a plain
 * lookup). `timedOut()` tells a timeout from a cancel, which node:dns reports differently.
 */
import { TimeoutError } from '@dnscore/core';

export interface CallSignal {
  readonly signal: AbortSignal | undefined;
  timedOut(): boolean;
  /** Clears the timer and the listeners. */
  done(): void;
}

const NONE: CallSignal = { signal: undefined, timedOut: () => false, done: () => {} };

export function callSignal(timeoutMs: number | undefined, signals: readonly (AbortSignal | undefined)[]): CallSignal {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  if (timeoutMs === undefined && given.length === 0) return NONE;
  if (timeoutMs === undefined && given.length === 1) return { signal: given[0], timedOut: () => false, done: () => {} };
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = (event: Event): void => controller.abort((event.target as AbortSignal).reason);
  for (const s of given) {
    if (s.aborted) controller.abort(s.reason);
    else s.addEventListener('abort', onAbort, { once: true });
  }
  const timer =
    timeoutMs === undefined || controller.signal.aborted
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new TimeoutError(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      if (timer !== undefined) clearTimeout(timer);
      for (const s of given) s.removeEventListener('abort', onAbort);
    },
  };
}
