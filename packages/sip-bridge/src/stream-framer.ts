/**
 * Cuts a TCP byte stream into SIP messages by Content-Length (RFC 3261 section 18.3: on a
 * stream the header is mandatory and says where the body ends), checking each header section
 * with the guard as its bytes arrive. Every byte is read once: `sip`'s own stream parser runs its
 * framing regex over the whole buffer on each chunk, so a slow sender made it quadratic. CRLFs
 * between messages (RFC 3261 section 7.5, RFC 5626 keep-alives) are skipped.
 */
import { HeaderScanner, type Rejection, type ResolvedLimits } from './message-guard.js';

export type FramerEvent =
  | { readonly type: 'message'; readonly bytes: Buffer }
  /** `headerSection` is set when only the size was refused and the header section passed. */
  | { readonly type: 'rejected'; readonly rejection: Rejection; readonly headerSection?: Buffer };

export class StreamFramer {
  #scanner: HeaderScanner | undefined;
  /** Bytes of the message being read, from earlier chunks. */
  #parts: Buffer[] = [];
  #headerBytes = 0;
  /** Body bytes still to come; -1 while reading the header section. */
  #bodyLeft = -1;
  #failed = false;

  constructor(private readonly limits: ResolvedLimits) {}

  /** True between the first byte of a message and its last. */
  get reading(): boolean {
    return this.#scanner !== undefined;
  }

  /** Reads one chunk; calls `emit` for each message it completes, and stops for good at a rejection. */
  push(chunk: Buffer, emit: (event: FramerEvent) => void): void {
    this.#read(chunk, emit);
  }

  #read(chunk: Buffer, emit: (event: FramerEvent) => void): undefined {
    let i = 0;
    while (i < chunk.length && !this.#failed) {
      if (!this.#scanner) {
        while (i < chunk.length && (chunk[i] === 0x0d || chunk[i] === 0x0a)) i++;
        if (i === chunk.length) return;
        this.#scanner = new HeaderScanner(this.limits);
        this.#bodyLeft = -1;
      }
      const start = i;
      if (this.#bodyLeft < 0) {
        const end = this.#scanner.push(chunk, i);
        if (end === -2) return this.#fail(emit, { type: 'rejected', rejection: this.#scanner.rejection! });
        if (end === -1) {
          this.#parts.push(chunk.subarray(start));
          return;
        }
        this.#headerBytes = this.#scanner.bytes;
        const length = this.#scanner.contentLength;
        if (length === undefined) {
          return this.#fail(emit, {
            type: 'rejected',
            rejection: { reason: 'content-length', detail: 'a message on a stream without Content-Length' },
          });
        }
        if (this.#headerBytes + length > this.limits.maxMessageBytes) {
          return this.#fail(emit, {
            type: 'rejected',
            rejection: {
              reason: 'message-too-large',
              detail: `the message is over ${this.limits.maxMessageBytes} bytes`,
            },
            headerSection: Buffer.concat([...this.#parts, chunk.subarray(start, end)]),
          });
        }
        this.#bodyLeft = length;
        i = end;
      }
      const take = Math.min(this.#bodyLeft, chunk.length - i);
      i += take;
      this.#bodyLeft -= take;
      if (this.#bodyLeft > 0) {
        this.#parts.push(chunk.subarray(start));
        return;
      }
      const bytes = Buffer.concat([...this.#parts, chunk.subarray(start, i)]);
      this.#parts = [];
      this.#scanner = undefined;
      emit({ type: 'message', bytes });
    }
    return undefined;
  }

  #fail(emit: (event: FramerEvent) => void, event: FramerEvent): undefined {
    this.#failed = true;
    this.#parts = [];
    this.#scanner = undefined;
    emit(event);
    return undefined;
  }
}
