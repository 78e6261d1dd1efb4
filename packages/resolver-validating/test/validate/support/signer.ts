/**
 * A minimal signer for records ldns cannot produce (an opt-out chain without the unsigned
 * delegations, hostile RRSIG floods): Ed25519 keys from node:crypto, RRSIGs over the engine's
 * canonical form, which the ldns-signed tests check independently.
 */
import { type KeyObject, generateKeyPairSync, sign } from 'node:crypto';
import { parseName } from '@dnscore/core/plugin';
import { type Rr, keyTag, parseRrsig } from '../../../src/validate/index.js';
import { signedData } from '../../../src/validate/canonical-rrset.js';
import { nameWire } from '../../../src/validate/canonical-name.js';

export interface TestKey {
  readonly privateKey: KeyObject;
  readonly dnskey: Rr;
  readonly tag: number;
}

/** A fresh Ed25519 zone key (flags 257) of `zone`. */
export function ed25519Key(zone: string): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const rdata = Uint8Array.of(1, 1, 3, 15, ...raw);
  return { privateKey, dnskey: { name: zone, rrtype: 48, class: 1, ttl: 3600, rdata }, tag: keyTag(rdata) };
}

export interface SignFields {
  readonly inception?: number;
  readonly expiration?: number;
  readonly keyTag?: number;
  readonly labels?: number;
}

/** An RRSIG by `key` over `records` (one RRset) of `zone`. */
export function signRrset(records: readonly Rr[], zone: string, key: TestKey, fields: SignFields = {}): Rr {
  const first = records[0]!;
  const owner = parseName(first.name);
  const isWild = owner[0]?.length === 1 && owner[0][0] === 0x2a;
  const head = new Uint8Array(18);
  const view = new DataView(head.buffer);
  view.setUint16(0, first.rrtype);
  head[2] = 15;
  head[3] = fields.labels ?? owner.length - (isWild ? 1 : 0);
  view.setUint32(4, first.ttl);
  view.setUint32(8, fields.expiration ?? Date.UTC(2028, 0, 1) / 1000);
  view.setUint32(12, fields.inception ?? Date.UTC(2026, 0, 1) / 1000);
  view.setUint16(16, fields.keyTag ?? key.tag);
  const unsigned = Buffer.concat([head, nameWire(parseName(zone))]);
  const placeholder = Buffer.concat([unsigned, new Uint8Array(64)]);
  const data = signedData(records, placeholder, parseRrsig(placeholder), owner);
  const signature = sign(null, data, key.privateKey);
  return { name: first.name, rrtype: 46, class: 1, ttl: first.ttl, rdata: Buffer.concat([unsigned, signature]) };
}

/** The type bitmaps field (RFC 4034 section 4.1.2) of `types`. */
export function typeBitmaps(types: readonly number[]): Uint8Array {
  const windows = new Map<number, number[]>();
  for (const type of types) {
    const octets = windows.get(type >> 8) ?? [];
    const index = (type & 0xff) >> 3;
    while (octets.length <= index) octets.push(0);
    octets[index] = octets[index]! | (0x80 >> (type & 7));
    windows.set(type >> 8, octets);
  }
  const out: number[] = [];
  for (const [window, octets] of [...windows].sort((a, b) => a[0] - b[0])) out.push(window, octets.length, ...octets);
  return Uint8Array.from(out);
}
