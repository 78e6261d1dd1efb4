/**
 * A signed tree on loopback for the differential tests: `example.` (the one trust anchor)
 * delegates to one child per DNSSEC case, every zone signed here by ldns with fresh keys and
 * served by one nsd. Both validators (this backend and libunbound) ask nsd directly, with the
 * same anchor, so each case is met by both in the same way:
 *
 *   secure      NSEC; CNAMEs to other, insecure and NSEC3 zones; a wildcard; a wildcard CNAME
 *   other       signed, secure -> secure across zones
 *   insecure    unsigned, no DS; CNAMEs back into signed zones
 *   nsec3       NSEC3 (no salt, 0 iterations); a wildcard
 *   optout      NSEC3 with opt-out, delegating to the unsigned child.optout; a wildcard
 *   expired     signatures expired 3 days ago
 *   future      signatures valid in 3 days (beyond libunbound's skew: 10% of the window, at most a day)
 *   bogus       signed, then www's A changed
 *   nokey       its DS in the parent matches no key
 *   norrsig     www's RRSIG removed
 *   nowild      a wildcard whose NSEC proof was removed
 *   unknownalg  its DS names algorithm 253 (private): unsupported, so insecure (RFC 4035 5.2)
 *   rollover    two KSKs and two ZSKs; the parent's DS is the new KSK's only
 *   ed25519     signed with Ed25519 (algorithm 15)
 *   iterations  NSEC3 with 200 iterations: its denials are insecure (RFC 9276; CVE-2023-50868)
 *   mixedalg    DS of algorithm 253 (unsupported) beside one of its real algorithm that matches no key:
 *               judged by the supported one alone, bogus (RFC 6840 5.2)
 *   mixeddigest a right SHA-1 DS beside a wrong SHA-256 one: SHA-1 is ignored, bogus (RFC 4509 3)
 *   unknowndigest its only DS has digest type 200: unsupported, insecure (RFC 4035 5.2)
 *   salted      NSEC3 with a salt and 5 iterations; a wildcard; an empty non-terminal
 *   hundred     NSEC3 with 100 iterations: the most RFC 9276 lets through here, secure
 *   signed.insecure  signed, with a DS in the unsigned insecure.example: no chain reaches it, insecure
 *   revoked     its one KSK has the REVOKE bit (RFC 5011) and the parent's DS matches it: bogus
 *   revokedplus a revoked KSK and a good one, a DS for each: secure by the good one
 *   lapsed      signatures expired 2 hours ago: bogus (delv agrees; libunbound's skew of 10% of the
 *               window, at most a day, takes them)
 *   ed448       signed with Ed448 (algorithm 16), which node:crypto checks (Debian's libunbound cannot)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ldnsTime } from '../../../../test/support/dnssec.js';
import { startNsd, type NsdServer } from '../../../../test/support/nsd.js';

const run = promisify(execFile);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface SignSpec {
  readonly ksks?: number;
  readonly zsks?: number;
  readonly inception?: Date;
  readonly expiration?: Date;
  /** NSEC3 instead of NSEC: `optOut` sets the flag on every NSEC3 record. */
  readonly nsec3?: { readonly optOut?: boolean; readonly iterations?: number; readonly salt?: string };
  /** The first KSK gets the REVOKE bit (RFC 5011) before signing. */
  readonly revokeFirstKsk?: boolean;
  /** ldns-keygen algorithm (default ECDSAP256SHA256). */
  readonly algorithm?: string;
}

interface Signed {
  readonly text: string;
  /** The DS records of the KSKs, in the order the keys were made ("zone.\tIN\tDS\t..."). */
  readonly ds: readonly string[];
  /** The same, with SHA-1 digests (digest type 1). */
  readonly ds1: readonly string[];
}

async function sign(zone: string, text: string, spec: SignSpec = {}): Promise<Signed> {
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-validating-sign-'));
  try {
    const keygen = async (ksk: boolean): Promise<string> =>
      (
        await run('ldns-keygen', ['-a', spec.algorithm ?? 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), zone], {
          cwd: dir,
        })
      ).stdout.trim();
    const ksks: string[] = [];
    for (let i = 0; i < (spec.ksks ?? 1); i++) ksks.push(await keygen(true));
    if (spec.revokeFirstKsk) await run('ldns-revoke', [`${ksks[0]!}.key`], { cwd: dir });
    const zsks: string[] = [];
    for (let i = 0; i < (spec.zsks ?? 1); i++) zsks.push(await keygen(false));
    writeFileSync(join(dir, 'zone'), text);
    const inception = spec.inception ?? new Date(Date.now() - HOUR);
    const expiration = spec.expiration ?? new Date(Date.now() + 30 * DAY);
    const nsec3 = spec.nsec3
      ? [
          '-n',
          '-t',
          String(spec.nsec3.iterations ?? 0),
          ...(spec.nsec3.salt ? ['-s', spec.nsec3.salt] : []),
          ...(spec.nsec3.optOut ? ['-p'] : []),
        ]
      : [];
    await run(
      'ldns-signzone',
      [...nsec3, '-i', ldnsTime(inception), '-e', ldnsTime(expiration), '-o', `${zone}.`, '-f', 'zone.signed'].concat([
        'zone',
        ...ksks,
        ...zsks,
      ]),
      { cwd: dir },
    );
    return {
      text: readFileSync(join(dir, 'zone.signed'), 'utf8'),
      ds: await Promise.all(
        ksks.map(async (k) => (await run('ldns-key2ds', ['-n', '-2', `${k}.key`], { cwd: dir })).stdout.trim()),
      ),
      ds1: await Promise.all(
        ksks.map(async (k) => (await run('ldns-key2ds', ['-n', '-1', `${k}.key`], { cwd: dir })).stdout.trim()),
      ),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const head = (zone: string): string =>
  `$ORIGIN ${zone}.\n$TTL 3600\n` +
  `@ IN SOA ns1.example. hostmaster.${zone}. 1 7200 900 1209600 300\n  IN NS ns1.example.\n`;

const ZONES = {
  secure: `www IN A 192.0.2.80
alias IN CNAME www
to-other IN CNAME www.other.example.
to-insecure IN CNAME www.insecure.example.
to-nsec3 IN CNAME www.nsec3.example.
to-bogus IN CNAME www.bogus.example.
moved IN DNAME other.example.
*.wild IN A 192.0.2.88
*.wildalias IN CNAME www
sub.deep IN TXT "empty non-terminal above"
`,
  other: 'www IN A 192.0.2.70\n',
  insecure: `www IN A 192.0.2.90
alias IN CNAME www.secure.example.
to-nothere IN CNAME nothere.secure.example.
`,
  nsec3: `www IN A 192.0.2.30
*.wild IN A 192.0.2.33
`,
  optout: `www IN A 192.0.2.40
child IN NS ns1.example.
*.wild IN A 192.0.2.42
`,
  'child.optout': 'www IN A 192.0.2.41\n',
  expired: 'www IN A 192.0.2.7\n',
  future: 'www IN A 192.0.2.8\n',
  bogus: 'www IN A 192.0.2.99\n',
  nokey: 'www IN A 192.0.2.9\n',
  norrsig: 'www IN A 192.0.2.10\nother IN A 192.0.2.11\n',
  nowild: '*.wild IN A 192.0.2.12\nwww IN A 192.0.2.13\n',
  unknownalg: 'www IN A 192.0.2.14\n',
  rollover: 'www IN A 192.0.2.15\n',
  ed25519: 'www IN A 192.0.2.16\n',
  iterations: 'www IN A 192.0.2.17\n',
  mixedalg: 'www IN A 192.0.2.18\n',
  mixeddigest: 'www IN A 192.0.2.19\n',
  unknowndigest: 'www IN A 192.0.2.20\n',
  salted: 'www IN A 192.0.2.23\n*.wild IN A 192.0.2.24\nsub.ent IN A 192.0.2.25\n',
  hundred: 'www IN A 192.0.2.26\n',
  revoked: 'www IN A 192.0.2.29\n',
  revokedplus: 'www IN A 192.0.2.30\n',
  lapsed: 'www IN A 192.0.2.22\n',
  ed448: 'www IN A 192.0.2.21\n',
  'signed.insecure': 'www IN A 192.0.2.27\n',
} as const;

export interface Tree {
  readonly nsd: NsdServer;
  /** The DS of `example.`: the one trust anchor. */
  readonly anchor: string;
  stop(): Promise<void>;
}

export async function startTree(): Promise<Tree> {
  const now = Date.now();
  const z = (name: string): string => `${head(`${name}.example`)}${ZONES[name as keyof typeof ZONES]}`;
  const [
    secure,
    other,
    nsec3,
    optout,
    expired,
    future,
    bogus,
    nokey,
    norrsig,
    nowild,
    unknownalg,
    rollover,
    ed25519,
    iterations,
    mixedalg,
    mixeddigest,
    unknowndigest,
    salted,
    hundred,
    signedInsecure,
    revoked,
    revokedplus,
    lapsed,
    ed448,
  ] = await Promise.all([
    sign('secure.example', z('secure')),
    sign('other.example', z('other')),
    sign('nsec3.example', z('nsec3'), { nsec3: {} }),
    sign('optout.example', `${z('optout')}`, { nsec3: { optOut: true } }),
    sign('expired.example', z('expired'), {
      inception: new Date(now - 30 * DAY),
      expiration: new Date(now - 3 * DAY),
    }),
    sign('future.example', z('future'), { inception: new Date(now + 3 * DAY), expiration: new Date(now + 30 * DAY) }),
    sign('bogus.example', z('bogus')),
    sign('nokey.example', z('nokey')),
    sign('norrsig.example', z('norrsig')),
    sign('nowild.example', z('nowild')),
    sign('unknownalg.example', z('unknownalg')),
    sign('rollover.example', z('rollover'), { ksks: 2, zsks: 2 }),
    sign('ed25519.example', z('ed25519'), { algorithm: 'ED25519' }),
    sign('iterations.example', z('iterations'), { nsec3: { iterations: 200 } }),
    sign('mixedalg.example', z('mixedalg')),
    sign('mixeddigest.example', z('mixeddigest')),
    sign('unknowndigest.example', z('unknowndigest')),
    sign('salted.example', z('salted'), { nsec3: { salt: 'aabbccdd', iterations: 5 } }),
    sign('hundred.example', z('hundred'), { nsec3: { iterations: 100 } }),
    sign('signed.insecure.example', z('signed.insecure')),
    sign('revoked.example', z('revoked'), { revokeFirstKsk: true }),
    sign('revokedplus.example', z('revokedplus'), { revokeFirstKsk: true, ksks: 2 }),
    sign('lapsed.example', z('lapsed'), {
      inception: new Date(now - 30 * DAY),
      expiration: new Date(now - 2 * HOUR),
    }),
    sign('ed448.example', z('ed448'), { algorithm: 'ED448' }),
  ]);
  const children = [
    'secure',
    'other',
    'insecure',
    'nsec3',
    'optout',
    'expired',
    'future',
    'bogus',
    'nokey',
    'norrsig',
    'nowild',
    'unknownalg',
    'rollover',
    'ed25519',
    'iterations',
    'mixedalg',
    'mixeddigest',
    'unknowndigest',
    'salted',
    'hundred',
    'revoked',
    'revokedplus',
    'lapsed',
    'ed448',
  ];
  const parent = await sign(
    'example',
    [
      head('example'),
      'ns1 IN A 127.0.0.1',
      ...children.map((child) => `${child} IN NS ns1.example.`),
      ...[secure, other, nsec3, optout, expired, future, bogus, norrsig, nowild, ed25519, iterations].map(
        (s) => s.ds[0]!,
      ),
      corruptDigest(nokey.ds[0]!),
      withAlgorithm(unknownalg.ds[0]!, 253),
      rollover.ds[1]!,
      corruptDigest(mixedalg.ds[0]!),
      withAlgorithm(mixedalg.ds[0]!, 253),
      corruptDigest(mixeddigest.ds[0]!),
      mixeddigest.ds1[0]!,
      withDigestType(unknowndigest.ds[0]!, 200),
      salted.ds[0]!,
      hundred.ds[0]!,
      revoked.ds[0]!,
      ...revokedplus.ds,
      lapsed.ds[0]!,
      ed448.ds[0]!,
      '',
    ].join('\n'),
  );
  const zones = [
    { name: 'example', text: parent.text },
    { name: 'secure.example', text: secure.text },
    { name: 'other.example', text: other.text },
    { name: 'insecure.example', text: `${z('insecure')}signed IN NS ns1.example.\n${signedInsecure.ds[0]!}\n` },
    { name: 'signed.insecure.example', text: signedInsecure.text },
    { name: 'salted.example', text: salted.text },
    { name: 'hundred.example', text: hundred.text },
    { name: 'revoked.example', text: revoked.text },
    { name: 'revokedplus.example', text: revokedplus.text },
    { name: 'lapsed.example', text: lapsed.text },
    { name: 'ed448.example', text: ed448.text },
    { name: 'nsec3.example', text: nsec3.text },
    { name: 'optout.example', text: optout.text },
    { name: 'child.optout.example', text: `${head('child.optout.example')}${ZONES['child.optout']}` },
    { name: 'expired.example', text: expired.text },
    { name: 'future.example', text: future.text },
    { name: 'bogus.example', text: replaceData(bogus.text, 'www.bogus.example.', 'A', '203.0.113.66') },
    { name: 'nokey.example', text: nokey.text },
    { name: 'norrsig.example', text: dropLines(norrsig.text, (f) => isRrsigOf(f, 'www.norrsig.example.', 'A')) },
    {
      name: 'nowild.example',
      text: dropLines(
        nowild.text,
        (f) => f[0] === '*.wild.nowild.example.' && (f[3] === 'NSEC' || isRrsigOf(f, '*.wild.nowild.example.', 'NSEC')),
      ),
    },
    { name: 'unknownalg.example', text: unknownalg.text },
    { name: 'rollover.example', text: rollover.text },
    { name: 'ed25519.example', text: ed25519.text },
    { name: 'iterations.example', text: iterations.text },
    { name: 'mixedalg.example', text: mixedalg.text },
    { name: 'mixeddigest.example', text: mixeddigest.text },
    { name: 'unknowndigest.example', text: unknowndigest.text },
  ];
  const nsd = await startNsd(zones);
  return { nsd, anchor: parent.ds[0]!, stop: () => nsd.stop() };
}

function fieldsOf(line: string): string[] {
  return line.split(/\s+/);
}

function isRrsigOf(fields: readonly string[], owner: string, type: string): boolean {
  return fields[0]?.toLowerCase() === owner.toLowerCase() && fields[3] === 'RRSIG' && fields[4] === type;
}

function dropLines(text: string, drop: (fields: string[]) => boolean): string {
  const kept = text.split('\n').filter((line) => !drop(fieldsOf(line)));
  if (kept.length === text.split('\n').length) throw new Error('the signed zone holds no line to drop');
  return kept.join('\n');
}

function replaceData(text: string, owner: string, type: string, data: string): string {
  const lines = text.split('\n');
  const index = lines.findIndex((line) => {
    const f = fieldsOf(line);
    return f[0]?.toLowerCase() === owner && f[3] === type;
  });
  if (index < 0) throw new Error(`no ${type} of ${owner} in the signed zone`);
  lines[index] = [...fieldsOf(lines[index]!).slice(0, 4), data].join('\t');
  return lines.join('\n');
}

/** The same DS with its digest's last hex digit changed: it matches no key. */
function corruptDigest(ds: string): string {
  const last = ds.at(-1)!;
  return `${ds.slice(0, -1)}${last === '0' ? '1' : '0'}`;
}

/** "zone. 3600 IN DS TAG ALG TYPE HEX" with another algorithm number. */
function withAlgorithm(ds: string, algorithm: number): string {
  const f = fieldsOf(ds);
  const at = f.indexOf('DS');
  f[at + 2] = String(algorithm);
  return f.join(' ');
}

/** "zone. 3600 IN DS TAG ALG TYPE HEX" with another digest type. */
function withDigestType(ds: string, digestType: number): string {
  const f = fieldsOf(ds);
  const at = f.indexOf('DS');
  f[at + 3] = String(digestType);
  return f.join(' ');
}
