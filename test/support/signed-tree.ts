/**
 * A small DNS tree with real delegations, signed with fresh keys every run, for DNSSEC status
 * tests: the parent `example` (the trust anchor) delegates to signed, unsigned and broken
 * children, so a validator meets every state of RFC 4035 section 4.3 on one nsd:
 *
 *   secure.example    signed, DS (SHA-256) in the parent
 *   other.example     signed, DS in the parent (secure -> secure across zones)
 *   insecure.example  unsigned, no DS: provably insecure
 *   bogus.example     signed, DS, www's A changed after signing: bogus
 *   sha1.example      signed; the parent has a correct SHA-1 DS and a wrong SHA-256 DS (RFC 4509 3)
 *   ed448.example     signed with Ed448 only, DS in the parent (secure only where libunbound has Ed448)
 */
import { createHash } from 'node:crypto';
import { alterRecord, signZone, type SignedZone } from './dnssec.js';

const SOA = (zone: string) =>
  `@ IN SOA ns1.example. hostmaster.${zone}. 1 7200 900 1209600 300\n  IN NS ns1.example.\n`;

const SECURE = `$ORIGIN secure.example.
$TTL 3600
${SOA('secure.example')}
www         IN A     192.0.2.80
alias       IN CNAME www
to-other    IN CNAME www.other.example.
to-insecure IN CNAME www.insecure.example.
to-bogus    IN CNAME www.bogus.example.
@           IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp.secure.example.
_sip._udp   IN SRV   10 60 5060 sip1
sip1        IN A     192.0.2.81
tagged      IN CNAME sip1
`;

const OTHER = `$ORIGIN other.example.
$TTL 3600
${SOA('other.example')}
www         IN A     192.0.2.70
`;

const INSECURE = `$ORIGIN insecure.example.
$TTL 3600
${SOA('insecure.example')}
www         IN A     192.0.2.90
alias       IN CNAME www.secure.example.
gone        IN CNAME nothere.secure.example.
to-bogus    IN CNAME www.bogus.example.
@           IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp.secure.example.
`;

const BOGUS = `$ORIGIN bogus.example.
$TTL 3600
${SOA('bogus.example')}
www         IN A     192.0.2.99
`;

const SHA1 = `$ORIGIN sha1.example.
$TTL 3600
${SOA('sha1.example')}
www         IN A     192.0.2.60
`;

const ED448 = `$ORIGIN ed448.example.
$TTL 3600
${SOA('ed448.example')}
www         IN A     192.0.2.48
`;

export interface SignedTree {
  /** Zones for startNsd: the parent and every child. */
  readonly zones: readonly { readonly name: string; readonly text: string }[];
  /** The parent's DS: the one trust anchor. */
  readonly anchor: string;
}

export async function signTree(): Promise<SignedTree> {
  const [secure, other, bogus, sha1, ed448] = await Promise.all([
    signZone('secure.example', SECURE),
    signZone('other.example', OTHER),
    signZone('bogus.example', BOGUS),
    signZone('sha1.example', SHA1),
    signZone('ed448.example', ED448, { algorithm: 'ED448' }),
  ]);
  const wrongSha256 = corruptDigest(dsOf(sha1, 2));
  const parent = await signZone(
    'example',
    [
      '$ORIGIN example.',
      '$TTL 3600',
      SOA('example'),
      'ns1 IN A 127.0.0.1',
      ...['secure', 'other', 'insecure', 'bogus', 'sha1', 'ed448'].map((child) => `${child} IN NS ns1.example.`),
      dsOf(secure, 2),
      dsOf(other, 2),
      dsOf(bogus, 2),
      dsOf(sha1, 1),
      wrongSha256,
      dsOf(ed448, 2),
      '',
    ].join('\n'),
  );
  const broken = alterRecord(bogus, { name: 'www.bogus.example.', type: 'A', data: '203.0.113.66' });
  return {
    zones: [
      { name: 'example', text: parent.text },
      { name: 'secure.example', text: secure.text },
      { name: 'other.example', text: other.text },
      { name: 'insecure.example', text: INSECURE },
      { name: 'bogus.example', text: broken.text },
      { name: 'sha1.example', text: sha1.text },
      { name: 'ed448.example', text: ed448.text },
    ],
    anchor: parent.ds,
  };
}

/**
 * The DS record of `zone`'s KSK with digest type 1 (SHA-1) or 2 (SHA-256), RFC 4034 section
 * 5.1.4: digest = hash(owner name in canonical wire form | DNSKEY RDATA).
 */
export function dsOf(zone: SignedZone, digestType: 1 | 2): string {
  // ldns ends a .key line with ";{id = ...}": cut it off, or an unpadded key (Ed448) takes it in.
  const fields = zone.dnskey.split(';')[0]!.trim().split(/\s+/);
  const at = fields.indexOf('DNSKEY');
  const [flags, protocol, algorithm, ...key] = fields.slice(at + 1);
  const rdata = Buffer.concat([
    Buffer.from([Number(flags) >> 8, Number(flags) & 0xff, Number(protocol), Number(algorithm)]),
    Buffer.from(key.join(''), 'base64'),
  ]);
  const owner = Buffer.concat([
    ...zone.name
      .toLowerCase()
      .split('.')
      .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])),
    Buffer.from([0]),
  ]);
  const digest = createHash(digestType === 1 ? 'sha1' : 'sha256')
    .update(Buffer.concat([owner, rdata]))
    .digest('hex');
  return `${zone.name}. IN DS ${zone.kskTag} ${algorithm} ${digestType} ${digest}`;
}

/** The same DS with its digest's last hex digit changed: it matches no key. */
function corruptDigest(ds: string): string {
  const last = ds.at(-1)!;
  return `${ds.slice(0, -1)}${last === '0' ? '1' : '0'}`;
}
