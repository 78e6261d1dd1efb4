/**
 * The messages this resolver parsed from the answer packets it handed out with DO and CD set
 * (`dnssecRecords`), so a caller that reads every record (a validator) does not parse the
 * same bytes again. Keyed by the packet object: a message is found only for the exact packet
 * it was parsed from, and lives as long as that packet.
 */
import type { WireMessage } from '@dnscore/core/plugin';

const parsed = new WeakMap<Uint8Array, WireMessage>();

/** Remembers `message` as the reading of its own packet. */
export function keepParsed(message: WireMessage): void {
  parsed.set(message.packet, message);
}

/**
 * The message parsed from `packet`, when this resolver handed it out in a PluginAnswer with
 * `dnssecRecords` on; undefined for any other packet (parse it with core's parseMessage).
 */
export function parsedAnswer(packet: Uint8Array): WireMessage | undefined {
  return parsed.get(packet);
}
