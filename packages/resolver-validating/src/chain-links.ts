/**
 * Reading the links of an answer's CNAME/DNAME chain (RFC 1034 section 3.6.2, RFC 6672): the
 * RRset of a name and type, the DNAME above a name, and where a link points.
 */
import { WireReader, type Labels } from '@dnscore/core/plugin';
import { isAtOrBelow, keyOf } from './names.js';
import type { Fetched } from './upstream.js';
import { DnssecType, ownerOf, type SignedRrset } from './validate/index.js';

/** The DNAME RRset at the closest proper ancestor of `name`, if the answer holds one. */
export function findDname(fetched: Fetched, name: Labels): SignedRrset | undefined {
  let best: SignedRrset | undefined;
  let depth = -1;
  for (const set of fetched.answerSets) {
    const first = set.records[0];
    if (!first || first.rrtype !== DnssecType.DNAME) continue;
    const owner = ownerOf(first);
    if (owner.length < name.length && owner.length > depth && isAtOrBelow(name, owner)) {
      best = set;
      depth = owner.length;
    }
  }
  return best;
}

/** RFC 6672 section 2.2: the owner's suffix replaced by the DNAME target. */
export function dnameTarget(dname: SignedRrset, name: Labels): Labels | undefined {
  if (dname.records.length !== 1) return undefined;
  const target = rdataName(dname.records[0]!.rdata);
  const owner = ownerOf(dname.records[0]!);
  if (!target) return undefined;
  const result = [...name.slice(0, name.length - owner.length), ...target];
  return result.reduce((n, l) => n + l.length + 1, 1) <= 255 ? result : undefined;
}

function rdataName(rdata: Uint8Array): Labels | undefined {
  try {
    const reader = new WireReader(rdata, 0);
    return reader.name('target').labels;
  } catch {
    return undefined;
  }
}

export function targetOf(cname: SignedRrset): Labels | undefined {
  if (cname.records.length !== 1) return undefined;
  return rdataName(cname.records[0]!.rdata);
}

export function findSet(fetched: Fetched, owner: Labels, type: number): SignedRrset | undefined {
  const key = keyOf(owner);
  return fetched.answerSets.find(
    (set) => set.records.length > 0 && set.records[0]!.rrtype === type && keyOf(ownerOf(set.records[0]!)) === key,
  );
}
