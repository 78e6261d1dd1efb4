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

/** Settles like `promise`, or rejects with AbortError as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!mayAbort(signal)) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // the work goes on unobserved; its failure is not ours to report
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => {});
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
