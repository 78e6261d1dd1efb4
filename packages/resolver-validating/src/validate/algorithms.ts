/**
 * DNSSEC signature algorithms with node:crypto: public keys from DNSKEY RDATA as JWK, and
 * signatures checked in DNSSEC's encodings. RSA: RFC 3110, 5702 (PKCS#1 v1.5); ECDSA: RFC 6605
 * (r || s, read as IEEE P1363); EdDSA: RFC 8080. Every other number (1 RSA/MD5, 3 and 6 DSA,
 * 12 GOST, private ones) is unsupported, which counts as insecure, never as secure.
 */
import { type KeyObject, createPublicKey, verify } from 'node:crypto';
import { PROBE_DATA, PROBES } from './algorithm-probes.js';

interface Algorithm {
  readonly name: string;
  /** The hash for crypto.verify; null for EdDSA (the hash is part of the scheme). */
  readonly hash: string | null;
  readonly key: (publicKey: Uint8Array) => KeyObject;
  readonly ecdsa: boolean;
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** RFC 3110 section 2: exponent length (1 octet, or 0 then 2 octets), exponent, modulus. */
function rsaKey(publicKey: Uint8Array): KeyObject {
  let offset = 1;
  let exponentLength = publicKey[0] ?? 0;
  if (exponentLength === 0) {
    exponentLength = ((publicKey[1] ?? 0) << 8) | (publicKey[2] ?? 0);
    offset = 3;
  }
  const modulus = publicKey.subarray(offset + exponentLength);
  if (exponentLength === 0 || modulus.length === 0) throw new Error('RSA key without exponent or modulus');
  // A leading zero octet would change nothing but a strict JWK reader; drop them.
  let start = 0;
  while (start < modulus.length - 1 && modulus[start] === 0) start++;
  return createPublicKey({
    key: {
      kty: 'RSA',
      n: b64url(modulus.subarray(start)),
      e: b64url(publicKey.subarray(offset, offset + exponentLength)),
    },
    format: 'jwk',
  });
}

function ecKey(curve: string, size: number): (publicKey: Uint8Array) => KeyObject {
  return (publicKey) => {
    if (publicKey.length !== size * 2) throw new Error(`${curve} key of ${publicKey.length} octets, not ${size * 2}`);
    return createPublicKey({
      key: { kty: 'EC', crv: curve, x: b64url(publicKey.subarray(0, size)), y: b64url(publicKey.subarray(size)) },
      format: 'jwk',
    });
  };
}

function okpKey(curve: string, size: number): (publicKey: Uint8Array) => KeyObject {
  return (publicKey) => {
    if (publicKey.length !== size) throw new Error(`${curve} key of ${publicKey.length} octets, not ${size}`);
    return createPublicKey({ key: { kty: 'OKP', crv: curve, x: b64url(publicKey) }, format: 'jwk' });
  };
}

const ALGORITHMS: ReadonlyMap<number, Algorithm> = new Map<number, Algorithm>([
  [5, { name: 'RSASHA1', hash: 'sha1', key: rsaKey, ecdsa: false }],
  [7, { name: 'RSASHA1-NSEC3-SHA1', hash: 'sha1', key: rsaKey, ecdsa: false }],
  [8, { name: 'RSASHA256', hash: 'sha256', key: rsaKey, ecdsa: false }],
  [10, { name: 'RSASHA512', hash: 'sha512', key: rsaKey, ecdsa: false }],
  [13, { name: 'ECDSAP256SHA256', hash: 'sha256', key: ecKey('P-256', 32), ecdsa: true }],
  [14, { name: 'ECDSAP384SHA384', hash: 'sha384', key: ecKey('P-384', 48), ecdsa: true }],
  [15, { name: 'ED25519', hash: null, key: okpKey('Ed25519', 32), ecdsa: false }],
  [16, { name: 'ED448', hash: null, key: okpKey('Ed448', 57), ecdsa: false }],
]);

const probed = new Map<number, boolean>();

/**
 * True for the algorithms this engine verifies (5, 7, 8, 10, 13, 14, 15, 16) that this Node
 * also verifies: each is checked once against a known signature (algorithm-probes.ts).
 */
export function isSupportedAlgorithm(algorithm: number): boolean {
  const spec = ALGORITHMS.get(algorithm);
  if (!spec) return false;
  let works = probed.get(algorithm);
  if (works === undefined) {
    // Algorithm 7 is algorithm 5 (RSA/SHA-1) under another number (RFC 5155 section 2).
    const probe = PROBES.get(algorithm === 7 ? 5 : algorithm);
    works = false;
    if (probe) {
      try {
        const key = spec.key(Buffer.from(probe[0], 'base64'));
        works = verifySignature(algorithm, key, Buffer.from(PROBE_DATA), Buffer.from(probe[1], 'base64'));
      } catch {
        works = false;
      }
    }
    probed.set(algorithm, works);
  }
  return works;
}

/** The mnemonic of an algorithm (RFC 8624's table), or "algorithm n". */
export function algorithmName(algorithm: number): string {
  return ALGORITHMS.get(algorithm)?.name ?? `algorithm ${algorithm}`;
}

/** Keys already built, by algorithm and key bytes: building a KeyObject costs more than a verify. */
const keyCache = new Map<string, KeyObject | Error>();
const KEY_CACHE_SIZE = 512;
const keysByBytes = new WeakMap<Uint8Array, { readonly algorithm: number; readonly built: KeyObject | Error }>();

/**
 * The KeyObject of a DNSKEY public key; an Error (returned, not thrown) when the bytes are no
 * key of that algorithm, or undefined when the algorithm is unsupported.
 */
export function publicKey(algorithm: number, key: Uint8Array): KeyObject | Error | undefined {
  const spec = ALGORITHMS.get(algorithm);
  if (!spec || !isSupportedAlgorithm(algorithm)) return undefined;
  // The same key bytes (a cached ZoneKey) find their KeyObject without re-encoding them.
  const seen = keysByBytes.get(key);
  if (seen && seen.algorithm === algorithm) return seen.built;
  const id = `${algorithm}:${Buffer.from(key.buffer, key.byteOffset, key.length).toString('base64')}`;
  const cached = keyCache.get(id);
  if (cached) {
    keysByBytes.set(key, { algorithm, built: cached });
    return cached;
  }
  let built: KeyObject | Error;
  try {
    built = spec.key(key);
  } catch (error) {
    built = new Error(`DNSKEY is not a valid ${spec.name} key: ${(error as Error).message}`);
  }
  if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(id, built);
  keysByBytes.set(key, { algorithm, built });
  return built;
}

/** True when `signature` over `data` verifies with `key`; false for a bad or malformed signature. */
export function verifySignature(algorithm: number, key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  const spec = ALGORITHMS.get(algorithm);
  if (!spec) return false;
  try {
    if (spec.ecdsa) return verify(spec.hash, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    return verify(spec.hash, data, key, signature);
  } catch {
    // OpenSSL refuses some inputs (a signature longer than the modulus): a failed check.
    return false;
  }
}
