import { KeyObject, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicKey, verifySignature } from '../../src/validate/algorithms.js';
import { algorithmName, isSupportedAlgorithm, isSupportedDigest } from '../../src/validate/index.js';

describe('algorithm and digest support', () => {
  it('counts an algorithm supported only when this Node verifies its probe signature', () => {
    expect([5, 7, 8, 10, 13, 14, 15, 16].filter(isSupportedAlgorithm)).toEqual([5, 7, 8, 10, 13, 14, 15, 16]);
    expect([0, 1, 2, 3, 4, 6, 9, 11, 12, 17, 23, 252, 253, 254, 255].filter(isSupportedAlgorithm)).toEqual([]);
    expect(algorithmName(13)).toBe('ECDSAP256SHA256');
    expect(algorithmName(12)).toBe('algorithm 12');
  });

  it('computes DS digests 1, 2 and 4, not GOST (3) or unassigned ones', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 255].filter(isSupportedDigest)).toEqual([1, 2, 4]);
  });
});

describe('public keys built once per key', () => {
  const p256 = (): { bytes: Uint8Array; sign: (data: Uint8Array) => Uint8Array } => {
    const { publicKey: pub, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = pub.export({ format: 'jwk' });
    const bytes = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    return {
      bytes: Uint8Array.from(bytes),
      sign: (data) => sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    };
  };

  it('gives the same KeyObject for the same algorithm and key bytes, from any array', () => {
    const key = p256();
    const built = publicKey(13, key.bytes);
    expect(built).toBeInstanceOf(KeyObject);
    expect(publicKey(13, Uint8Array.from(key.bytes))).toBe(built);
    const data = Uint8Array.of(1, 2, 3);
    expect(verifySignature(13, built as KeyObject, data, key.sign(data))).toBe(true);
  });

  it('keys by the whole key, never by part of it: another key is another KeyObject', () => {
    const one = p256();
    const two = p256();
    const data = Uint8Array.of(4, 5, 6);
    const keyTwo = publicKey(13, two.bytes) as KeyObject;
    expect(keyTwo).not.toBe(publicKey(13, one.bytes));
    expect(verifySignature(13, keyTwo, data, one.sign(data))).toBe(false);
    // The same 64 bytes are no Ed25519 key (32 octets), and nothing is unsupported.
    expect(publicKey(15, one.bytes)).toBeInstanceOf(Error);
    expect(publicKey(12, one.bytes)).toBeUndefined();
  });

  it('keeps bytes that are no key an Error, also when asked again', () => {
    const notOnCurve = new Uint8Array(64).fill(7);
    const first = publicKey(13, notOnCurve);
    expect(first).toBeInstanceOf(Error);
    expect((first as Error).message).toMatch(/^DNSKEY is not a valid ECDSAP256SHA256 key/);
    expect(publicKey(13, Uint8Array.from(notOnCurve))).toBeInstanceOf(Error);
  });
});
