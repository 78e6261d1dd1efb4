/**
 * Owner names of the engine's records as labels, read once per record: a record made by
 * `uncompressedRecord` carries the labels its message was read with; any other record is
 * parsed on first use, and remembered when it is frozen (its name cannot change under it).
 * Records are keyed by identity: a copy with another name (`{ ...record, name }`) is parsed
 * anew, never given the labels of the record it was copied from.
 */
import { type Labels, parseName } from '@dnscore/core/plugin';
import type { Rr } from './types.js';

const owners = new WeakMap<Rr, Labels>();

/** The owner of `record` as labels (core's parseName of its name). */
export function ownerOf(record: Rr): Labels {
  const known = owners.get(record);
  if (known) return known;
  const labels = parseName(record.name);
  if (Object.isFrozen(record)) owners.set(record, labels);
  return labels;
}

/** Records `labels` as the owner of the frozen `record`, whose name they were formatted into. */
export function knownOwner<T extends Rr>(record: T, labels: Labels): T {
  owners.set(Object.freeze(record), labels);
  return record;
}
