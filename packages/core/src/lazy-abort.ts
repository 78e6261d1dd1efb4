/**
 * A cancellation that costs almost nothing until something needs a real AbortSignal: a question
 * waiting in the limiter's queue holds this, not an AbortController with an EventTarget and its
 * listener (about 0.9 KB each; 9,000 of them wait in a burst of 10,000). The AbortController is
 * made when the question goes out (`signal`), and aborted with this.
 */
export class LazyAbort {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  /** One listener (the usual case: a limiter's waiter) or several; no array for one. */
  #listeners: AbortListener | AbortListener[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A real signal for sockets and timers, made on first use; aborted already when this is. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    this.#controller?.abort(reason);
    if (Array.isArray(listeners)) for (const listener of listeners) call(listener, this);
    else if (listeners !== undefined) call(listeners, this);
  }

  /** Runs `listener` once on abort (AbortSignal's 'abort' event, without an EventTarget). */
  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#aborted) return;
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = listener;
    else if (Array.isArray(listeners)) listeners.push(listener);
    else this.#listeners = [listeners, listener];
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const listeners = this.#listeners;
    if (listeners === listener) this.#listeners = undefined;
    else if (Array.isArray(listeners)) {
      const index = listeners.indexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    }
  }
}

function call(listener: AbortListener, source: LazyAbort): void {
  if (typeof listener === 'function') listener();
  else listener.handleEvent(source);
}

/**
 * A function, or an object with handleEvent() (no closure needed), as EventTarget takes them.
 * A LazyAbort hands handleEvent itself (an AbortSignal an Event), so one listener can serve many.
 */
export type AbortListener = (() => void) | { handleEvent(source?: unknown): void };

/** What the limiter needs of a cancellation: an AbortSignal or a LazyAbort. */
export interface Abortable {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}
