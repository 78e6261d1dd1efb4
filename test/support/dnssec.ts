/**
 * Signs zones for DNSSEC tests with ldns-keygen and ldns-signzone, with fresh keys every run,
 * and hands back the signed text and the DS record to use as the trust anchor. A signed zone
 * changed afterwards (`alterRecord`) no longer matches its signatures: it answers bogus.
 * Serve the text with startNsd from ./nsd.js.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface SignOptions {
  /** Start of the signatures' validity (default: one hour ago). */
  readonly inception?: Date;
  /** End of the signatures' validity (default: 30 days from now). */
  readonly expiration?: Date;
  /** ldns-keygen algorithm (default ECDSAP256SHA256, algorithm 13). */
  readonly algorithm?: string;
}

export interface SignedZone {
  /** Zone name without the trailing dot, as startNsd wants it: "biloxi.test". */
  readonly name: string;
  /** The signed master file (RRSIG, NSEC and DNSKEY records added). */
  readonly text: string;
  /** The KSK's DS record ("biloxi.test.\tIN\tDS\t12345 13 2 ..."): the trust anchor. */
  readonly ds: string;
  /** The KSK's DNSKEY record ("biloxi.test.\tIN\tDNSKEY\t257 3 13 ..."), for other DS digests. */
  readonly dnskey: string;
  readonly kskTag: number;
  readonly zskTag: number;
  readonly inception: Date;
  readonly expiration: Date;
}

export function ldnsInstalled(): boolean {
  return ['/usr/bin/ldns-signzone', '/usr/local/bin/ldns-signzone'].some((file) => existsSync(file));
}

/** Signs `text` (a master file for `name`) with a new KSK and ZSK. */
export async function signZone(name: string, text: string, options: SignOptions = {}): Promise<SignedZone> {
  const zone = name.replace(/\.$/, '');
  const algorithm = options.algorithm ?? 'ECDSAP256SHA256';
  const inception = options.inception ?? new Date(Date.now() - HOUR);
  const expiration = options.expiration ?? new Date(Date.now() + 30 * DAY);
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-sign-'));
  try {
    const ksk = (await run('ldns-keygen', ['-a', algorithm, '-k', zone], { cwd: dir })).stdout.trim();
    const zsk = (await run('ldns-keygen', ['-a', algorithm, zone], { cwd: dir })).stdout.trim();
    writeFileSync(join(dir, 'zone'), text);
    await run(
      'ldns-signzone',
      ['-i', ldnsTime(inception), '-e', ldnsTime(expiration), '-o', `${zone}.`, '-f', 'zone.signed', 'zone', ksk, zsk],
      { cwd: dir },
    );
    return {
      name: zone,
      text: readFileSync(join(dir, 'zone.signed'), 'utf8'),
      ds: readFileSync(join(dir, `${ksk}.ds`), 'utf8').trim(),
      dnskey: readFileSync(join(dir, `${ksk}.key`), 'utf8').trim(),
      kskTag: keyTag(ksk),
      zskTag: keyTag(zsk),
      inception,
      expiration,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface RecordChange {
  /** Owner name, fully qualified with the trailing dot: "sip1.biloxi.test.". */
  readonly name: string;
  readonly type: string;
  /** New RDATA in presentation form. */
  readonly data: string;
}

/**
 * The signed zone with the data of the first `name`/`type` record replaced after signing: its
 * RRSIG no longer matches, so a validator answers bogus for that RRset (and only that one).
 */
export function alterRecord(zone: SignedZone, change: RecordChange): SignedZone {
  const lines = zone.text.split('\n');
  const index = lines.findIndex((line) => {
    const fields = line.split('\t');
    return fields[0]?.toLowerCase() === change.name.toLowerCase() && fields[3] === change.type.toUpperCase();
  });
  if (index < 0) throw new Error(`no ${change.type} record of ${change.name} in the signed ${zone.name}`);
  const fields = lines[index]!.split('\t');
  lines[index] = [...fields.slice(0, 4), change.data].join('\t');
  return { ...zone, text: lines.join('\n') };
}

/** ldns-verify-zone's complaint about `text`, or undefined when every signature checks. */
export function verifyZone(text: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-verify-'));
  try {
    writeFileSync(join(dir, 'zone'), text);
    execFileSync('ldns-verify-zone', [join(dir, 'zone')], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    return `${String(stdout ?? '')}${String(stderr ?? '')}`.trim() || String(error);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** YYYYMMDDhhmmss in UTC, as ldns-signzone and libunbound's val-override-date take it. */
export function ldnsTime(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** "Kbiloxi.test.+013+33481" -> 33481 */
function keyTag(base: string): number {
  const match = /\+(\d+)$/.exec(base);
  if (!match) throw new Error(`ldns-keygen printed an unexpected key name: ${base}`);
  return Number(match[1]);
}
