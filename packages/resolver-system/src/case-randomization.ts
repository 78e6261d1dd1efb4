/**
 * 0x20 case randomization (draft-vixie-dnsext-dns0x20, unbound's use-caps-for-id): each letter
 * of the query name gets a random case, and the answer's question must echo it exactly. A
 * forger who guessed the ID and port must also guess one bit per letter. A server that does
 * not echo case is asked again plainly (unbound's fallback) and remembered for a while.
 */
import type { DnsQuery } from '@dnscore/core/plugin';
import { randomByte } from './query-id.js';
import { nameBuffer, queryWireName, type WireName } from './wire.js';

/**
 * `name` with each ASCII letter's case drawn at random (crypto); other bytes unchanged. It is
 * what goes on the wire and what the answer must echo.
 */
export function randomizeCase(name: WireName): WireName {
  // A hand-made DnsQuery may hold a name longer than a name may be: it gets a buffer of its own.
  const bytes = name.length <= nameBuffer.length ? nameBuffer : Buffer.alloc(name.length);
  const length = bytes.write(name, 0, 'latin1');
  let bits = 0;
  let n = 0;
  // Length octets are below 64 and never letters: the whole name is walked as one.
  for (let i = 0; i < length; i++) {
    const c = bytes[i]!;
    if (!isLetter(c)) continue;
    if ((n & 7) === 0) bits = randomByte();
    bytes[i] = ((bits >> (n & 7)) & 1) === 1 ? c & ~0x20 : c | 0x20;
    n++;
  }
  return bytes.toString('latin1', 0, length);
}

/**
 * `packet` with the name we sent back in the case asked (in a copy; the packet received is kept
 * as it came, and returned itself when nothing needs restoring), wherever it or one of its
 * suffixes is written out in full: the question at offset 12, owners the server did not
 * compress, and names that a server or forwarder wrote out from a pointer into our question (a
 * CNAME target `www.other.` + the question's random-case `eXAmpLE`, decompressed on the way).
 * The caller sees names as asked, whatever case went on the wire. A match is byte for byte in
 * the random case, length octets and root label included; a suffix only when it has a capital.
 * `sent`: the name as sent (randomizeCase).
 */
export function restoreQuestionCase(packet: Uint8Array, sent: WireName, asked: DnsQuery): Uint8Array {
  // The name in the case asked: the same bytes as `sent` but for the letters' case.
  const to = queryWireName(asked);
  if (to.length !== sent.length) return packet;
  // Searched natively: a DNSSEC answer is a kilobyte, and a byte loop here would run on every
  // answer. The packet is copied only when a name in it is put back in the case asked.
  const view = Buffer.isBuffer(packet) ? packet : Buffer.from(packet.buffer, packet.byteOffset, packet.length);
  let copy: Uint8Array | undefined;
  // The whole name first, then each shorter suffix: a full copy restored no longer matches.
  for (let start = 0; start < sent.length - 1; start += sent.charCodeAt(start) + 1) {
    // A suffix is taken only with a capital we drew: zone data is mostly lower case, and a
    // signed name written in full that happened to match (an NSEC next name keeps its case,
    // RFC 6840 section 5.1) must not be changed, or its signature fails.
    if (start > 0 ? !hasCapital(sent, start) : sent === to) continue;
    const suffix = start > 0 ? sent.slice(start) : sent;
    // Found in the packet as received or in the copy being restored: the same bytes, except
    // names already put back, which no longer match.
    const haystack = copy === undefined ? view : Buffer.from(copy.buffer, copy.byteOffset, copy.length);
    for (
      let at = haystack.indexOf(suffix, 12, 'latin1');
      at !== -1;
      at = haystack.indexOf(suffix, at + suffix.length, 'latin1')
    ) {
      copy ??= new Uint8Array(packet);
      for (let i = start; i < to.length; i++) copy[at + i - start] = to.charCodeAt(i);
    }
  }
  return copy ?? packet;
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
