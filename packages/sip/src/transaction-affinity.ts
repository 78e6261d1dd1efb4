/**
 * Transaction affinity (RFC 3263 section 4): once a server took a transaction, its
 * retransmissions, the ACK of a non-2xx final response and a CANCEL MUST go to that same
 * server. All three carry the transaction's Via branch (RFC 3261 sections 9.1, 17.1.1.3), so
 * the branch is the key. The ACK of a 2xx is a new transaction and is not covered.
 */
import { InvalidArgumentError, systemClock, type Clock } from '@dnscore/core';
import { DEFAULT_TRANSACTION_AFFINITY_MS, DEFAULT_TRANSACTION_MAX_ENTRIES } from './defaults.js';
import { ExpiringMap } from './expiring-map.js';
import type { SipTarget } from './resolution.js';

export interface TransactionAffinityOptions {
  /** How long after its last use a transaction's target is kept, ms (default 212 s). */
  readonly lifetimeMs?: number;
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

export class TransactionAffinity {
  readonly #map: ExpiringMap<SipTarget>;

  constructor(options: TransactionAffinityOptions = {}) {
    this.#map = new ExpiringMap(
      options.clock ?? systemClock,
      options.lifetimeMs ?? DEFAULT_TRANSACTION_AFFINITY_MS,
      options.maxEntries ?? DEFAULT_TRANSACTION_MAX_ENTRIES,
      'transaction affinity',
    );
  }

  /** The request with this Via branch was sent to `target`. */
  bind(branch: string, target: SipTarget): void {
    this.#map.set(checkBranch(branch), target);
  }

  /** Where a retransmission, CANCEL or non-2xx ACK with this branch must go; undefined when unknown or expired. */
  lookup(branch: string): SipTarget | undefined {
    return this.#map.touch(checkBranch(branch));
  }

  /** The transaction is over (terminated state). */
  release(branch: string): boolean {
    return this.#map.delete(checkBranch(branch));
  }

  get size(): number {
    return this.#map.size;
  }
}

function checkBranch(branch: string): string {
  if (typeof branch !== 'string' || branch === '')
    throw new InvalidArgumentError('a Via branch must be a non-empty string');
  return branch;
}
