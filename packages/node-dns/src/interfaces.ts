/**
 * Which address families this host has configured, for ADDRCONFIG (RFC 3493 section 6.1: a
 * family counts when a non-loopback address of it is configured). os.networkInterfaces() is a
 * system call per use, and net passes ADDRCONFIG on nearly every connect, so the answer is kept
 * for a second: an unref'd timer forgets it, so a warm call reads no clock for it.
 */
import { networkInterfaces } from 'node:os';

export interface ConfiguredFamilies {
  readonly ipv4: boolean;
  readonly ipv6: boolean;
}

const KEEP_MS = 1000;
let kept: ConfiguredFamilies | undefined;

export function configuredFamilies(): ConfiguredFamilies {
  if (kept) return kept;
  let ipv4 = false;
  let ipv6 = false;
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.internal) continue;
      if (address.family === 'IPv4') ipv4 = true;
      else if (!address.address.startsWith('fe80:')) ipv6 = true;
    }
  }
  kept = { ipv4, ipv6 };
  setTimeout(forget, KEEP_MS).unref();
  return kept;
}

function forget(): void {
  kept = undefined;
}
