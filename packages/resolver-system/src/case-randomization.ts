/**
 * 0x20 case randomization (draft-vixie-dnsext-dns0x20, unbound's use-caps-for-id): each letter
 * of the query name gets a random case, and the answer's question must echo it exactly. A
 * forger who guessed the ID and port must also guess one bit per letter. A server that does
 * not echo case is asked again plainly (unbound's fallback) and remembered for a while.
 */
import { randomBytes } from 'node:crypto';
import { wireLength, type Labels } from '@dnscore/core/plugin';

/**
 * The labels with each ASCII letter's case drawn at random (crypto); other bytes unchanged.
 * The copy is one buffer, each label a view of it.
 */
export function randomizeCase(labels: Labels): Labels {
  let letters = 0;
  let total = 0;
  for (const label of labels) {
    total += label.length;
    for (const c of label) if (isLetter(c)) letters++;
  }
  if (letters === 0) return labels;
  const bits = randomBytes(Math.ceil(letters / 8));
  const bytes = new Uint8Array(total);
  const out: Uint8Array[] = new Array(labels.length);
  let n = 0;
  let offset = 0;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    for (let j = 0; j < label.length; j++) {
      const c = label[j]!;
      if (!isLetter(c)) bytes[offset + j] = c;
      else {
        bytes[offset + j] = ((bits[n >> 3]! >> (n & 7)) & 1) === 1 ? c & ~0x20 : c | 0x20;
        n++;
      }
    }
    out[i] = bytes.subarray(offset, offset + label.length);
    offset += label.length;
  }
  return out;
}

/** True when the two names are the same bytes, case included. */
export function sameCase(a: Labels, b: Labels): boolean {
  return (
    a.length === b.length &&
    a.every((label, i) => label.length === b[i]!.length && label.every((c, j) => c === b[i]![j]))
  );
}

/**
 * A copy of `packet` with the name we sent back in the case asked, wherever it or one of its
 * suffixes is written out in full: the question at offset 12, owners the server did not
 * compress, and names that a server or forwarder wrote out from a pointer into our question (a
 * CNAME target `www.other.` + the question's random-case `eXAmpLE`, decompressed on the way).
 * The caller sees names as asked, whatever case went on the wire. A match is byte for byte in
 * the random case, length octets and root label included; a suffix only when it has a capital.
 */
export function restoreQuestionCase(packet: Uint8Array, sent: Labels, original: Labels): Uint8Array {
  const from = wireForm(sent);
  const to = wireForm(original);
  // Copied and searched natively: a DNSSEC answer is a kilobyte, and a byte loop here would
  // run on every answer.
  const copy = new Uint8Array(packet);
  const view = Buffer.from(copy.buffer, copy.byteOffset, copy.length);
  // The whole name first, then each shorter suffix: a full copy restored no longer matches.
  for (let start = 0; start < from.length - 1; start += from[start]! + 1) {
    const suffix = from.subarray(start);
    const restored = to.subarray(start);
    // A suffix is taken only with a capital we drew: zone data is mostly lower case, and a
    // signed name written in full that happened to match (an NSEC next name keeps its case,
    // RFC 6840 section 5.1) must not be changed, or its signature fails.
    if (start > 0 ? !hasCapital(suffix) : Buffer.compare(suffix, restored) === 0) continue;
    for (let at = view.indexOf(suffix, 12); at !== -1; at = view.indexOf(suffix, at + suffix.length)) {
      copy.set(restored, at);
    }
  }
  return copy;
}

function hasCapital(wire: Uint8Array): boolean {
  for (const c of wire) if (c >= 0x41 && c <= 0x5a) return true;
  return false;
}

function wireForm(labels: Labels): Uint8Array {
  const out = new Uint8Array(wireLength(labels));
  let offset = 0;
  for (const label of labels) {
    out[offset] = label.length;
    out.set(label, offset + 1);
    offset += 1 + label.length;
  }
  return out; // the last octet stays 0: the root label
}

/** Servers (by address and port) that did not echo case: asked plainly until the entry expires. */
export class CaseEchoMemory {
  readonly #until = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly forMs = 3_600_000,
    private readonly max = 256,
  ) {}

  echoes(server: string): boolean {
    const until = this.#until.get(server);
    if (until === undefined) return true;
    if (this.now() < until) return false;
    this.#until.delete(server);
    return true;
  }

  forget(server: string): void {
    this.#until.delete(server);
    this.#until.set(server, this.now() + this.forMs);
    while (this.#until.size > this.max) this.#until.delete(this.#until.keys().next().value!);
  }
}

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
