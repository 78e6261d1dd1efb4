/**
 * Self-signed DNSKEY RRsets made with node:crypto, one per DNSSEC algorithm, for finding out
 * which algorithms and DS digests the loaded libunbound can validate (see dnssec-support.ts).
 * RFC 4034 (DNSKEY, RRSIG, DS, key tag), RFC 3110 (RSA keys), RFC 6605 (ECDSA), RFC 8080 (EdDSA).
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { parseName, wireName } from '@dnscore/core/plugin';

/** The algorithms probed: every one still in use (RFC 8624), with node:crypto's way to sign. */
export const PROBED_ALGORITHMS: readonly { readonly number: number; readonly name: string }[] = [
  { number: 5, name: 'RSASHA1' },
  { number: 7, name: 'RSASHA1-NSEC3-SHA1' },
  { number: 8, name: 'RSASHA256' },
  { number: 10, name: 'RSASHA512' },
  { number: 13, name: 'ECDSAP256SHA256' },
  { number: 14, name: 'ECDSAP384SHA384' },
  { number: 15, name: 'ED25519' },
  { number: 16, name: 'ED448' },
];

/** DS digest types probed (RFC 4034, RFC 4509, RFC 6605). */
export const PROBED_DIGESTS: readonly { readonly number: number; readonly name: string; readonly hash: string }[] = [
  { number: 1, name: 'SHA-1', hash: 'sha1' },
  { number: 2, name: 'SHA-256', hash: 'sha256' },
  { number: 4, name: 'SHA-384', hash: 'sha384' },
];

const TTL = 3600;
const DNSKEY = 48;

export interface ProbeKey {
  /** Owner name, lower case, with the trailing dot. */
  readonly owner: string;
  readonly algorithm: number;
  readonly dnskey: Uint8Array;
  readonly rrsig: Uint8Array;
  readonly keyTag: number;
}

/** A KSK for `owner` with `algorithm`, and the RRSIG of its DNSKEY RRset made with it. */
export function probeKey(owner: string, algorithm: number, now = Date.now()): ProbeKey {
  const { publicKey, privateKey, hash } = keyPair(algorithm);
  const dnskey = concat([u16(257), [3, algorithm], publicKeyField(algorithm, publicKey)]);
  const keyTag = keyTagOf(dnskey);
  const labels = parseName(owner.toLowerCase());
  const name = wireName(labels);
  const seconds = Math.floor(now / 1000);
  const header = concat([
    u16(DNSKEY),
    [algorithm, labels.length],
    u32(TTL),
    u32(seconds + 86_400),
    u32(seconds - 3_600),
    u16(keyTag),
    name,
  ]);
  const data = concat([header, name, u16(DNSKEY), u16(1), u32(TTL), u16(dnskey.length), dnskey]);
  const signature =
    algorithm === 13 || algorithm === 14
      ? sign(hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' })
      : sign(hash, data, privateKey);
  return { owner, algorithm, dnskey, rrsig: concat([header, signature]), keyTag };
}

/** "OWNER IN DNSKEY 257 3 ALG BASE64" */
export function dnskeyText(key: ProbeKey): string {
  return `${key.owner} IN DNSKEY 257 3 ${key.algorithm} ${Buffer.from(key.dnskey.subarray(4)).toString('base64')}`;
}

/** "OWNER IN DS TAG ALG DIGEST-TYPE HEX" (RFC 4034 section 5.1.4: hash of owner | DNSKEY RDATA). */
export function dsText(key: ProbeKey, digest: (typeof PROBED_DIGESTS)[number]): string {
  const value = createHash(digest.hash)
    .update(concat([wireName(parseName(key.owner.toLowerCase())), key.dnskey]))
    .digest('hex');
  return `${key.owner} IN DS ${key.keyTag} ${key.algorithm} ${digest.number} ${value}`;
}

/** One RSA pair for every RSA algorithm of the process's probes (only the hash differs): keys are slow to make. */
let rsa: { publicKey: KeyObject; privateKey: KeyObject } | undefined;

function keyPair(algorithm: number): { publicKey: KeyObject; privateKey: KeyObject; hash: string | null } {
  switch (algorithm) {
    case 5:
    case 7:
    case 8:
    case 10: {
      rsa ??= generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 65537 });
      return { ...rsa, hash: algorithm === 8 ? 'sha256' : algorithm === 10 ? 'sha512' : 'sha1' };
    }
    case 13:
      return { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }), hash: 'sha256' };
    case 14:
      return { ...generateKeyPairSync('ec', { namedCurve: 'P-384' }), hash: 'sha384' };
    case 15:
      return { ...generateKeyPairSync('ed25519'), hash: null };
    case 16:
      return { ...generateKeyPairSync('ed448'), hash: null };
    default:
      throw new RangeError(`no probe key for DNSSEC algorithm ${algorithm}`);
  }
}

function publicKeyField(algorithm: number, publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  const bytes = (text: string | undefined): Buffer => Buffer.from(text ?? '', 'base64url');
  if (algorithm === 13 || algorithm === 14) return concat([bytes(jwk.x), bytes(jwk.y)]);
  if (algorithm === 15 || algorithm === 16) return bytes(jwk.x);
  // RFC 3110: exponent length (one octet when < 256), exponent, modulus.
  const exponent = bytes(jwk.e);
  return concat([[exponent.length], exponent, bytes(jwk.n)]);
}

/** RFC 4034 appendix B. */
function keyTagOf(rdata: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i]! : rdata[i]! << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

function u16(n: number): number[] {
  return [(n >> 8) & 0xff, n & 0xff];
}

function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function concat(parts: readonly (Uint8Array | readonly number[])[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}
