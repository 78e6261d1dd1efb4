/**
 * The one cancel rule: a cancelled call rejects with AbortError at once, whatever the work
 * underneath is still doing, and nothing fires for it afterwards.
 */
import { setMaxListeners } from 'node:events';
import { AbortError } from './errors.js';

/**
 * The signal of a call whose caller gave none: it never aborts. DnsCore hands it to plugins
 * instead of making an AbortController per question; listening to it is pointless (mayAbort).
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;
// Plugins that listen anyway add one listener per question in flight: no leak warning for that.
setMaxListeners(0, NEVER_ABORTED);

/** False for NEVER_ABORTED and no signal: nothing to listen to, no waiter to let go. */
export function mayAbort(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal !== undefined && signal !== NEVER_ABORTED;
}

/** The AbortError of an aborted signal (or of anything that carries an abort reason). */
export function abortError(signal: { readonly reason?: unknown }): AbortError {
  return new AbortError('The operation was aborted', { cause: signal.reason });
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

interface FanOut {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

/** One listener per signal, fanning out to every caller waiting on it. */
const fanOuts = new WeakMap<AbortSignal, FanOut>();

/**
 * Calls `callback` once when `signal` aborts; returns the function that forgets it. However
 * many calls wait on one signal (a request- or shutdown-scoped one is the common pattern), the
 * signal holds one listener: EventTarget scans its listeners on every add, so a listener per
 * call would make N calls start in N^2 time.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let fan = fanOuts.get(signal);
  if (!fan) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      fanOuts.delete(signal);
      for (const call of callbacks) {
        try {
          call();
        } catch (error) {
          queueMicrotask(() => {
            throw error; // reported as EventTarget would, without skipping the other callers
          });
        }
      }
      callbacks.clear();
    };
    fan = { callbacks, listener };
    fanOuts.set(signal, fan);
    signal.addEventListener('abort', listener, { once: true });
  }
  const entry = (): void => callback(); // its own identity, so one callback may be added twice
  fan.callbacks.add(entry);
  const joined = fan;
  return () => {
    if (!joined.callbacks.delete(entry) || joined.callbacks.size > 0) return;
    if (fanOuts.get(signal) === joined) fanOuts.delete(signal);
    signal.removeEventListener('abort', joined.listener);
  };
}

/** Settles like `promise`, or rejects with AbortError as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!mayAbort(signal)) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // the work goes on unobserved; its failure is not ours to report
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const forget = onAbort(signal, () => {
      promise.catch(() => {});
      reject(abortError(signal));
    });
    promise.then(
      (value) => {
        forget();
        resolve(value);
      },
      (error: unknown) => {
        forget();
        reject(error);
      },
    );
  });
}
