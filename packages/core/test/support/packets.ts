/**
 * Raw DNS answers for tests, byte by byte (Asterisk's main/dns_test.c): so a test can write a
 * length byte that lies, a truncated RDATA or a compression pointer exactly where it wants.
 */
export interface RawRecord {
  /** Owner; default: a pointer to the question name (0xC00C). */
  readonly name?: string;
  readonly type: number;
  readonly class?: number;
  readonly ttl?: number;
  readonly rdata: Uint8Array;
}

export interface RawAnswer {
  readonly id?: number;
  readonly rcode?: number;
  readonly flags?: number;
  readonly question?: { readonly name: string; readonly type: number; readonly class?: number };
  readonly answers?: readonly RawRecord[];
  readonly authorities?: readonly RawRecord[];
  readonly additionals?: readonly RawRecord[];
}

export function u16(n: number): number[] {
  return [(n >> 8) & 0xff, n & 0xff];
}

export function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/** A <character-string>: the length byte (which may lie) and the bytes. */
export function characterString(text: string, length = Buffer.byteLength(text)): number[] {
  return [length, ...Buffer.from(text)];
}

/** An uncompressed domain name: labels and the null label. */
export function domain(name: string): number[] {
  const out: number[] = [];
  if (name !== '.' && name !== '') {
    for (const label of name.replace(/\.$/, '').split('.')) out.push(label.length, ...Buffer.from(label));
  }
  out.push(0);
  return out;
}

export function bytes(...parts: number[][]): Uint8Array {
  return Uint8Array.from(parts.flat());
}

/** SRV RDATA (RFC 2782). */
export function srvRdata(priority: number, weight: number, port: number, target: string): Uint8Array {
  return bytes(u16(priority), u16(weight), u16(port), domain(target));
}

export interface NaptrFields {
  readonly order: number;
  readonly preference: number;
  readonly flags: string;
  readonly services: string;
  readonly regexp: string;
  readonly replacement: string;
  /** Length bytes to write instead of the real ones. */
  readonly lengths?: { readonly flags?: number; readonly services?: number; readonly regexp?: number };
}

/** NAPTR RDATA (RFC 3403), with optionally lying length bytes. */
export function naptrRdata(n: NaptrFields): Uint8Array {
  return bytes(
    u16(n.order),
    u16(n.preference),
    characterString(n.flags, n.lengths?.flags),
    characterString(n.services, n.lengths?.services),
    characterString(n.regexp, n.lengths?.regexp),
    domain(n.replacement),
  );
}

/** A whole response packet. The question defaults to goose.feathers, as in Asterisk's tests. */
export function answerPacket(answer: RawAnswer): Uint8Array {
  const question = answer.question ?? { name: 'goose.feathers', type: 1 };
  const sections = [answer.answers ?? [], answer.authorities ?? [], answer.additionals ?? []];
  const flags = answer.flags ?? 0x8400; // QR and AA
  const out: number[] = [
    ...u16(answer.id ?? 0),
    ...u16(flags | (answer.rcode ?? 0)),
    ...u16(1),
    ...u16(sections[0]!.length),
    ...u16(sections[1]!.length),
    ...u16(sections[2]!.length),
    ...domain(question.name),
    ...u16(question.type),
    ...u16(question.class ?? 1),
  ];
  for (const record of sections.flat()) {
    out.push(...(record.name === undefined ? [0xc0, 0x0c] : domain(record.name)));
    out.push(
      ...u16(record.type),
      ...u16(record.class ?? 1),
      ...u32(record.ttl ?? 12345),
      ...u16(record.rdata.length),
      ...record.rdata,
    );
  }
  return Uint8Array.from(out);
}
