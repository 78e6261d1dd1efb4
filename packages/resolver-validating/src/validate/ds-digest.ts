/**
 * DS digests (RFC 4034 section 5.1.4, RFC 4509, RFC 6605): a hash of the DNSKEY owner in
 * canonical form followed by the DNSKEY RDATA. Digest types node cannot compute (3, GOST)
 * are unsupported: such a DS can neither secure nor break a zone (RFC 4035 section 5.2).
 */
import { createHash, getHashes } from 'node:crypto';
import type { Labels } from '@dnscore/core/plugin';
import { nameWire } from './canonical-name.js';

const DIGESTS: ReadonlyMap<number, { readonly hash: string; readonly length: number }> = new Map([
  [1, { hash: 'sha1', length: 20 }],
  [2, { hash: 'sha256', length: 32 }],
  [4, { hash: 'sha384', length: 48 }],
]);

/** True for the DS digest types this engine computes (1 SHA-1, 2 SHA-256, 4 SHA-384) and this Node has. */
export function isSupportedDigest(digestType: number): boolean {
  const digest = DIGESTS.get(digestType);
  return digest !== undefined && getHashes().includes(digest.hash);
}

/** The digest of a DNSKEY for a DS of `digestType`; undefined when the type is unsupported. */
export function dsDigest(owner: Labels, dnskeyRdata: Uint8Array, digestType: number): Uint8Array | undefined {
  const digest = DIGESTS.get(digestType);
  if (!digest || !isSupportedDigest(digestType)) return undefined;
  return createHash(digest.hash).update(nameWire(owner)).update(dnskeyRdata).digest();
}
