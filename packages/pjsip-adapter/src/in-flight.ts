/**
 * PJSIP frees the request's pool when its callback returns, so the callback must not run while
 * any query of that resolution is still out (pjproject #5142). A resolution can end early (a
 * bogus answer ends it while its sibling query is still running), so the adapter resolves
 * through this wrapper: every question asked inside `track()` belongs to that call, and
 * `track()` settles only once all of them have.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DnsResolver, DnsResult, ResolveOptions, TypedRecord, TypedRecordName } from '@dnscore/core';

export class InFlightTracker implements DnsResolver {
  readonly #store = new AsyncLocalStorage<Set<Promise<unknown>>>();
  #running = 0;

  constructor(private readonly inner: DnsResolver) {}

  /** Questions asked and not yet answered, across all calls. */
  get inFlight(): number {
    return this.#running;
  }

  resolve<T extends TypedRecordName>(
    name: string,
    type: T,
    options?: ResolveOptions,
  ): Promise<DnsResult<TypedRecord<T>>>;
  resolve(name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult>;
  resolve(name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult> {
    const pending = this.inner.resolve(name, type, options);
    this.#running++;
    const settled = pending.then(
      () => void this.#running--,
      () => void this.#running--,
    );
    this.#store.getStore()?.add(settled);
    return pending;
  }

  /** Runs `work`; settles like it, but only after every question it asked has settled. */
  async track<R>(work: () => Promise<R>): Promise<R> {
    const asked = new Set<Promise<unknown>>();
    const outcome = await this.#store.run(asked, () =>
      work().then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    );
    // A settled question can have led to a new one in the same call: wait until the set is stable.
    for (let size = -1; size !== asked.size; ) {
      size = asked.size;
      await Promise.all(asked);
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }
}
