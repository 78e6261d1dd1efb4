/**
 * Zones signed by ldns (ldnsutils, from scripts/install-system-deps.sh) in a temporary
 * directory, read back through `ldns-read-zone` in RFC 3597 form, so the tests compare the
 * engine with an independent signer instead of with itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Rr, SignedRrset } from '../../../src/validate/index.js';

export interface KeySpec {
  /** ldns-keygen's name: RSASHA256, ECDSAP256SHA256, ED25519, ... */
  readonly algorithm: string;
  readonly ksk?: boolean;
  /** RSA modulus bits (default 1024: small keys keep the tests fast). */
  readonly bits?: number;
}

export interface SignOptions {
  readonly origin: string;
  /** Zone text after `$ORIGIN origin.` and `$TTL 3600`. */
  readonly body: string;
  readonly keys: readonly KeySpec[];
  readonly nsec3?: {
    /** Hex; '' for none. */ readonly salt: string;
    readonly iterations: number;
    readonly optOut?: boolean;
  };
  /** ldns dates, YYYYMMDDhhmmss (default 20260101000000 .. 20280101000000). */
  readonly inception?: string;
  readonly expiration?: string;
}

export interface SignedZone {
  readonly records: readonly Rr[];
  /** DS records of the KSKs, by digest type (1, 2, 4). */
  readonly ds: ReadonlyMap<number, readonly Rr[]>;
  /** Key tags ldns gave the keys, in the order of `keys`. */
  readonly tags: readonly number[];
}

/** Fixed test time: inside the default signature window. */
export const TEST_NOW = Date.UTC(2026, 11, 1);
export const testClock = { now: () => TEST_NOW };

/** Runs an ldns tool in `dir`; its stdout. */
export function ldns(dir: string, tool: string, args: readonly string[]): string {
  return execFileSync(tool, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function withTempDir<T>(use: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-ldns-'));
  try {
    return use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Records of a zone file, every type in RFC 3597 form (ldns-read-zone -U SOA -u SOA). */
export function readRecords(dir: string, file: string): Rr[] {
  const text = ldns(dir, 'ldns-read-zone', ['-U', 'SOA', '-u', 'SOA', file]);
  const records: Rr[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s+(\d+)\s+IN\s+TYPE(\d+)\s+\\#\s+(\d+)\s*([0-9a-fA-F ]*)$/.exec(line.trim());
    if (!m) continue;
    const owner = m[1]!;
    records.push({
      name: owner === '.' ? '.' : owner.replace(/\.$/, ''),
      rrtype: Number(m[3]),
      class: 1,
      ttl: Number(m[2]),
      rdata: Uint8Array.from(Buffer.from(m[5]!.replace(/\s/g, ''), 'hex')),
    });
  }
  return records;
}

/** Signs a zone with fresh keys. */
export function signZone(options: SignOptions): SignedZone {
  return withTempDir((dir) => {
    const origin = options.origin;
    writeFileSync(join(dir, 'zone'), `$ORIGIN ${origin}.\n$TTL 3600\n${options.body}\n`);
    const bases: string[] = [];
    for (const key of options.keys) {
      const args = ['-a', key.algorithm];
      if (key.algorithm.startsWith('RSA')) args.push('-b', String(key.bits ?? 1024));
      if (key.ksk) args.push('-k');
      args.push(`${origin}.`);
      bases.push(ldns(dir, 'ldns-keygen', args).trim());
    }
    const args = [
      '-i',
      options.inception ?? '20260101000000',
      '-e',
      options.expiration ?? '20280101000000',
      '-f',
      'signed',
      '-o',
      `${origin}.`,
    ];
    if (options.nsec3) {
      args.push('-n', '-t', String(options.nsec3.iterations));
      if (options.nsec3.salt !== '') args.push('-s', options.nsec3.salt);
      if (options.nsec3.optOut) args.push('-p');
    }
    ldns(dir, 'ldns-signzone', [...args, 'zone', ...bases]);
    const ds = new Map<number, Rr[]>();
    for (const digest of [1, 2, 4]) {
      const list: Rr[] = [];
      options.keys.forEach((key, i) => {
        if (!key.ksk) return;
        writeFileSync(join(dir, `ds${i}`), ldns(dir, 'ldns-key2ds', ['-n', `-${digest}`, `${bases[i]}.key`]));
        list.push(...readRecords(dir, `ds${i}`));
      });
      ds.set(digest, list);
    }
    const tags = bases.map((base) => Number(/\+(\d+)$/.exec(base)![1]));
    return { records: readRecords(dir, 'signed'), ds, tags };
  });
}

/** The RRset of `name`/`type` in `records` with its RRSIGs. */
export function rrsetOf(records: readonly Rr[], name: string, type: number): SignedRrset {
  const same = (r: Rr): boolean => r.name.toLowerCase() === name.toLowerCase();
  return {
    records: records.filter((r) => same(r) && r.rrtype === type),
    rrsigs: records.filter((r) => same(r) && r.rrtype === 46 && ((r.rdata[0]! << 8) | r.rdata[1]!) === type),
  };
}

/** Every NSEC (47) or NSEC3 (50) RRset of the zone, each with its RRSIG. */
export function denialRrsets(records: readonly Rr[], type: 47 | 50): SignedRrset[] {
  return records.filter((r) => r.rrtype === type).map((r) => rrsetOf(records, r.name, type));
}
