/**
 * 0x20 case randomization (draft-vixie-dnsext-dns0x20, unbound's use-caps-for-id): each letter
 * of the query name gets a random case, and the answer's question must echo it exactly. A
 * forger who guessed the ID and port must also guess one bit per letter. A server that does
 * not echo case is asked again plainly (unbound's fallback) and remembered for a while.
 */
import { MAX_NAME_LENGTH, wireName, type DnsQuery } from '@dnscore/core/plugin';
import { randomByte } from './query-id.js';
import type { WireName } from './wire.js';

/** Where a name's case is drawn: one buffer for every name, written synchronously. */
const scratch = Buffer.allocUnsafeSlow(MAX_NAME_LENGTH);

/**
 * `name` with each ASCII letter's case drawn at random (crypto); other bytes unchanged. It is
 * what goes on the wire and what the answer must echo.
 */
export function randomizeCase(name: WireName): WireName {
  const length = scratch.write(name, 0, 'latin1');
  let bits = 0;
  let n = 0;
  // Length octets are below 64 and never letters: the whole name is walked as one.
  for (let i = 0; i < length; i++) {
    const c = scratch[i]!;
    if (!isLetter(c)) continue;
    if ((n & 7) === 0) bits = randomByte();
    scratch[i] = ((bits >> (n & 7)) & 1) === 1 ? c & ~0x20 : c | 0x20;
    n++;
  }
  return scratch.toString('latin1', 0, length);
}

/**
 * A copy of `packet` with the name we sent back in the case asked, wherever it or one of its
 * suffixes is written out in full: the question at offset 12, owners the server did not
 * compress, and names that a server or forwarder wrote out from a pointer into our question (a
 * CNAME target `www.other.` + the question's random-case `eXAmpLE`, decompressed on the way).
 * The caller sees names as asked, whatever case went on the wire. A match is byte for byte in
 * the random case, length octets and root label included; a suffix only when it has a capital.
 * `sent`: the name as sent (randomizeCase).
 */
export function restoreQuestionCase(packet: Uint8Array, sent: WireName, asked: DnsQuery): Uint8Array {
  const to = askedWireForm(sent, asked);
  // Copied and searched natively: a DNSSEC answer is a kilobyte, and a byte loop here would
  // run on every answer.
  const copy = new Uint8Array(packet);
  const view = Buffer.from(copy.buffer, copy.byteOffset, copy.length);
  // The whole name first, then each shorter suffix: a full copy restored no longer matches.
  for (let start = 0; start < sent.length - 1; start += sent.charCodeAt(start) + 1) {
    // A suffix is taken only with a capital we drew: zone data is mostly lower case, and a
    // signed name written in full that happened to match (an NSEC next name keeps its case,
    // RFC 6840 section 5.1) must not be changed, or its signature fails.
    if (start > 0 ? !hasCapital(sent, start) : sameBytes(sent, to)) continue;
    const suffix = start > 0 ? sent.slice(start) : sent;
    for (
      let at = view.indexOf(suffix, 12, 'latin1');
      at !== -1;
      at = view.indexOf(suffix, at + suffix.length, 'latin1')
    ) {
      for (let i = start; i < to.length; i++) copy[at + i - start] = to[i]!;
    }
  }
  return copy;
}

/**
 * The sent name in the case asked. Read from the query's text when that is the name's bytes
 * joined by dots (no escapes): checked byte for byte, so nothing else is taken for it; else
 * from its labels (the core makes them anew on each read).
 */
function askedWireForm(sent: WireName, query: DnsQuery): Uint8Array {
  const text = query.name;
  if (text.length + 2 !== sent.length) return wireName(query.labels);
  const out = new Uint8Array(sent.length);
  let j = 0;
  for (let start = 0; start < sent.length - 1; start += sent.charCodeAt(start) + 1) {
    if (start > 0 && text.charCodeAt(j++) !== 0x2e) return wireName(query.labels);
    const length = sent.charCodeAt(start);
    out[start] = length;
    for (let i = start + 1; i <= start + length; i++) {
      const c = text.charCodeAt(j++);
      const d = sent.charCodeAt(i);
      if (isLetter(d) ? (c | 0x20) !== (d | 0x20) : c !== d) return wireName(query.labels);
      out[i] = c;
    }
  }
  return out; // the last octet stays 0: the root label
}

function sameBytes(a: WireName, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a.charCodeAt(i) !== b[i]) return false;
  return true;
}

/** True when the name's bytes from `start` hold a capital. */
function hasCapital(wire: WireName, start: number): boolean {
  for (let i = start; i < wire.length; i++) {
    const c = wire.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
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
