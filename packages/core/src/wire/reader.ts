/**
 * A bounded reader over one DNS message. Every read is checked against a limit (the end of
 * the packet, or of one record's RDATA), so hostile bytes end in a WireError, never in a
 * read past the data or a misread field.
 */
import { MAX_LABEL_LENGTH, MAX_NAME_LENGTH, nameText, type Labels } from '../names.js';

/** Where and why bytes could not be read. */
export class WireError extends Error {
  override name = 'WireError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export interface DecodedName {
  readonly labels: Labels;
  /** Presentation form, as formatName() writes it. */
  readonly text: string;
}

export class WireReader {
  constructor(
    /** The whole message: compression pointers may point anywhere before the name. */
    readonly packet: Uint8Array,
    public offset: number,
    /** Reads must end at or before this offset. */
    public limit: number = packet.length,
  ) {}

  get remaining(): number {
    return this.limit - this.offset;
  }

  private need(n: number, what: string): void {
    if (this.offset + n > this.limit) {
      throw new WireError(`${what} needs ${n} bytes, ${this.remaining} left`, this.offset);
    }
  }

  u8(what = 'octet'): number {
    this.need(1, what);
    return this.packet[this.offset++]!;
  }

  u16(what = '16-bit field'): number {
    this.need(2, what);
    const p = this.packet;
    const v = (p[this.offset]! << 8) | p[this.offset + 1]!;
    this.offset += 2;
    return v;
  }

  u32(what = '32-bit field'): number {
    this.need(4, what);
    const p = this.packet;
    const v =
      ((p[this.offset]! << 24) >>> 0) +
      ((p[this.offset + 1]! << 16) | (p[this.offset + 2]! << 8) | p[this.offset + 3]!);
    this.offset += 4;
    return v;
  }

  bytes(n: number, what = 'data'): Uint8Array {
    this.need(n, what);
    const out = this.packet.slice(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** A <character-string> (RFC 1035 section 3.3): a length octet, then that many bytes. */
  characterString(what = 'character-string'): Uint8Array {
    const length = this.u8(`${what} length`);
    return this.bytes(length, what);
  }

  /**
   * A domain name, following compression pointers (RFC 1035 section 4.1.4). A pointer must
   * point strictly before the label that holds it, so a loop cannot form; label types 01 and
   * 10 are refused, and the name must fit in 255 octets.
   */
  name(what = 'name'): DecodedName {
    const labels: Uint8Array[] = [];
    nameText.start();
    this.#walkName(what, labels, true);
    return { labels, text: nameText.end() };
  }

  /** A name's labels alone (name() without its text): what a question check compares. */
  labels(what = 'name'): Labels {
    const labels: Uint8Array[] = [];
    this.#walkName(what, labels);
    return labels;
  }

  /** A name's presentation form alone (name() without its labels): one string, nothing else made. */
  nameText(what = 'name'): string {
    nameText.start();
    this.#walkName(what, undefined, true);
    return nameText.end();
  }

  /** Steps over a name with the same checks as name(), making nothing (a transport's check of a whole answer). */
  skipName(what = 'name'): void {
    this.#walkName(what, undefined);
  }

  /**
   * The one walk over a name's labels (name(), nameText() and skipName()): views of its labels
   * go to `labels` when given, their text to the name writer when `text` is set.
   */
  #walkName(what: string, labels: Uint8Array[] | undefined, text = false): void {
    let length = 1;
    let position = this.offset;
    let limit = this.limit; // in place, the name must fit the current limit
    let jumped = false;
    for (;;) {
      if (position >= limit) throw new WireError(`${what} runs past the end of its data`, position);
      const len = this.packet[position]!;
      const kind = len & 0xc0;
      if (kind === 0xc0) {
        if (position + 2 > limit) throw new WireError(`${what} has a cut compression pointer`, position);
        const target = ((len & 0x3f) << 8) | this.packet[position + 1]!;
        if (target >= position)
          throw new WireError(`${what} has a compression pointer that does not point backwards`, position);
        if (!jumped) this.offset = position + 2;
        jumped = true;
        limit = position; // the pointed-to name must lie wholly before the pointer
        position = target;
        continue;
      }
      if (kind !== 0) throw new WireError(`${what} uses the unsupported label type 0x${kind.toString(16)}`, position);
      if (len === 0) {
        if (!jumped) this.offset = position + 1;
        return;
      }
      if (len > MAX_LABEL_LENGTH) throw new WireError(`${what} has a label of ${len} octets`, position);
      if (position + 1 + len > limit) throw new WireError(`${what} has a label that runs past its data`, position);
      length += len + 1;
      if (length > MAX_NAME_LENGTH) throw new WireError(`${what} is longer than ${MAX_NAME_LENGTH} octets`, position);
      // Views of the packet, not copies: a parsed message is read, never written, and whoever
      // keeps its records keeps the packet too.
      labels?.push(this.packet.subarray(position + 1, position + 1 + len));
      if (text) nameText.label(this.packet, position + 1, position + 1 + len);
      position += 1 + len;
    }
  }
}
