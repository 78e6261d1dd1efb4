/**
 * Call-ID affinity, the IPVS SIP persistence engine's idea in user space: every request of a
 * dialog goes to the same server. A Call-ID is learned from requests in both directions: one
 * we sent that a server answered pins it to that server; one the far side sent pins it to the
 * address it came from. The pin lives for a persistence time after the dialog's last request
 * (IPVS: the template's timeout, refreshed by each packet); the newest learning wins.
 */
import { InvalidArgumentError, systemClock, type Clock } from '@dnscore/core';
import { affinityChannel } from '@dnscore/core/diagnostics';
import { DEFAULT_CALL_ID_MAX_ENTRIES, DEFAULT_CALL_ID_PERSISTENCE_MS, MAX_CALL_ID_LENGTH } from './defaults.js';
import { ExpiringMap } from './expiring-map.js';
import { normalizeDestination, type Destination } from './penalty-box.js';

export interface CallIdAffinityOptions {
  /** Persistence time after the last request of the dialog, ms (default 180 s). */
  readonly persistenceMs?: number;
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

/** Where a Call-ID is pinned, and which way it was learned. */
export interface CallIdPin extends Destination {
  /** Host name of the target, when the pin came from a resolved target. */
  readonly host?: string;
  readonly learned: 'outgoing' | 'incoming';
}

export class CallIdAffinity {
  readonly #map: ExpiringMap<CallIdPin>;

  constructor(options: CallIdAffinityOptions = {}) {
    this.#map = new ExpiringMap(
      options.clock ?? systemClock,
      options.persistenceMs ?? DEFAULT_CALL_ID_PERSISTENCE_MS,
      options.maxEntries ?? DEFAULT_CALL_ID_MAX_ENTRIES,
      'Call-ID affinity',
    );
  }

  /**
   * A request with this Call-ID that we sent to `target` got a response. False when the Call-ID
   * is too long to track.
   */
  learnOutgoing(callId: string, target: Destination & { readonly host?: string }): boolean {
    return this.#learn(callId, target, 'outgoing');
  }

  /** The far side sent a request with this Call-ID from `source` (where it listens). */
  learnIncoming(callId: string, source: Destination): boolean {
    return this.#learn(callId, source, 'incoming');
  }

  /** The pin for this Call-ID; a lookup is a use of the dialog, so persistence starts again. */
  lookup(callId: string): CallIdPin | undefined {
    return trackable(callId) ? this.#map.touch(callId) : undefined;
  }

  forget(callId: string): boolean {
    return trackable(callId) ? this.#map.delete(callId) : false;
  }

  get size(): number {
    return this.#map.size;
  }

  #learn(
    callId: string,
    destination: Destination & { readonly host?: string },
    learned: CallIdPin['learned'],
  ): boolean {
    if (!trackable(callId)) return false;
    const { transport, address, port } = normalizeDestination(destination);
    const { host } = destination;
    const pin = Object.freeze({ transport, address, port, ...(host ? { host } : {}), learned });
    this.#map.set(callId, pin);
    if (affinityChannel.hasSubscribers)
      affinityChannel.publish({
        callId,
        destination: { transport, address, port, ...(host ? { host } : {}) },
        learned,
      });
    return true;
  }
}

/** A Call-ID must be a non-empty string; an over-long one (hostile or broken) gets no affinity. */
function trackable(callId: string): boolean {
  if (typeof callId !== 'string' || callId === '')
    throw new InvalidArgumentError('a Call-ID must be a non-empty string');
  return callId.length <= MAX_CALL_ID_LENGTH;
}
