/** Mutations of a DNS packet for property and fuzz tests: what a broken or hostile sender does. */
import fc from 'fast-check';

/** Byte flips, truncation, insertion and compression pointers: breaks the packet's structure. */
export const STRUCTURAL_MUTATIONS = [
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('pointer' as const), at: fc.nat(), target: fc.integer({ min: 0, max: 0x3fff }) }),
] as const;

/** The fields an attacker aims at: a record's CLASS or TTL (0xff 0xff: ANY; 0x7f..: huge). */
export const FIELD_MUTATIONS = [
  fc.record({
    kind: fc.constant('u16' as const),
    at: fc.nat(),
    value: fc.constantFrom(0x00ff, 0x00fe, 0x0003, 0xffff, 0),
  }),
  fc.record({
    kind: fc.constant('u32' as const),
    at: fc.nat(),
    value: fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0xffffffff),
  }),
] as const;

type ArbitraryValue<A> = A extends fc.Arbitrary<infer M> ? M : never;
export type Mutation = ArbitraryValue<(typeof STRUCTURAL_MUTATIONS)[number] | (typeof FIELD_MUTATIONS)[number]>;

export function mutate(packet: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let bytes = Array.from(packet);
  for (const m of mutations) {
    const at = bytes.length === 0 ? 0 : m.at % bytes.length;
    if (m.kind === 'flip') bytes[at] = m.value;
    else if (m.kind === 'truncate') bytes = bytes.slice(0, at);
    else if (m.kind === 'insert') bytes.splice(at, 0, ...m.bytes);
    else if (m.kind === 'pointer') bytes.splice(at, 2, 0xc0 | (m.target >> 8), m.target & 0xff);
    else if (m.kind === 'u16') bytes.splice(at, 2, m.value >> 8, m.value & 0xff);
    else bytes.splice(at, 4, m.value >>> 24, (m.value >>> 16) & 0xff, (m.value >>> 8) & 0xff, m.value & 0xff);
  }
  return Uint8Array.from(bytes);
}
