/**
 * The zones the bench serves from nsd: RFC 3263's walk-through (the example zone the project
 * ships), an SRV-only zone on which every system must agree, a signed copy of the RFC 3263
 * zone for the DNSSEC figures, and a bulk zone of many A records.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** RFC 3263 sections 4.1/4.2: NAPTR -> SRV -> A (examples/zones/biloxi.example.zone). */
export const RFC3263_ZONE = 'biloxi.example';
/** No NAPTR: SRV for UDP and TCP, A records only; every system's answer must be the same. */
export const SRV_ONLY_ZONE = 'chicago.example';
/** The RFC 3263 zone again, signed with fresh keys each run. */
export const SIGNED_ZONE = 'secure.example';
/** n0.bulk.example ... n{N-1}.bulk.example, one A record each. */
export const BULK_ZONE = 'bulk.example';

/** Every zone nsd serves; resolvers are stubbed to nsd for these and refuse every other name. */
export const BENCH_ZONES = [RFC3263_ZONE, SRV_ONLY_ZONE, SIGNED_ZONE, BULK_ZONE] as const;

const EXAMPLE_ZONE_FILE = fileURLToPath(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url));

export function rfc3263ZoneText(origin = RFC3263_ZONE): string {
  const text = readFileSync(EXAMPLE_ZONE_FILE, 'utf8');
  if (!text.includes('$ORIGIN biloxi.example.'))
    throw new Error(`${EXAMPLE_ZONE_FILE} no longer starts with $ORIGIN biloxi.example.`);
  return text.replace('$ORIGIN biloxi.example.', `$ORIGIN ${origin}.`);
}

export function srvOnlyZoneText(): string {
  return [
    `$ORIGIN ${SRV_ONLY_ZONE}.`,
    '$TTL 3600',
    '@          IN SOA ns1 hostmaster 2026120101 7200 900 1209600 300',
    '           IN NS  ns1',
    'ns1        IN A   203.0.113.53',
    '_sip._udp  IN SRV 10 60 5060 sip1',
    '           IN SRV 10 40 5060 sip2',
    '_sip._tcp  IN SRV 10 60 5060 sip1',
    '           IN SRV 10 40 5060 sip2',
    'sip1       IN A   203.0.113.21',
    'sip2       IN A   203.0.113.22',
    // WARM_DOMAINS copies of the same service, one per loop of the warm-throughput runs.
    ...Array.from({ length: WARM_DOMAINS }, (_, i) => [
      `_sip._udp.s${i} IN SRV 10 60 5060 sip1.s${i}`,
      `_sip._udp.s${i} IN SRV 10 40 5060 sip2.s${i}`,
      `_sip._tcp.s${i} IN SRV 10 60 5060 sip1.s${i}`,
      `_sip._tcp.s${i} IN SRV 10 40 5060 sip2.s${i}`,
      `sip1.s${i} IN A 203.0.113.21`,
      `sip2.s${i} IN A 203.0.113.22`,
    ]).flat(),
    '',
  ].join('\n');
}

/**
 * Domains under the SRV-only zone with the same service and addresses (s0.chicago.example ...):
 * concurrent loops of a throughput run each ask their own, so no system gets to merge
 * identical questions in flight (the npm `sip` stack does) where the others answer each.
 */
export const WARM_DOMAINS = 16;

export function warmDomain(i: number): string {
  return `s${i % WARM_DOMAINS}.${SRV_ONLY_ZONE}`;
}

/** Name i of the bulk zone. */
export function bulkName(i: number): string {
  return `n${i}.${BULK_ZONE}`;
}

/** The address of name i: 10.x.y.z, unique for i < 2^24. */
export function bulkAddress(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

export function bulkZoneText(names: number): string {
  const lines = [
    `$ORIGIN ${BULK_ZONE}.`,
    '$TTL 3600',
    '@ IN SOA ns1 hostmaster 2026120101 7200 900 1209600 300',
    '  IN NS ns1',
    'ns1 IN A 203.0.113.53',
  ];
  for (let i = 0; i < names; i++) lines.push(`n${i} IN A ${bulkAddress(i)}`);
  return `${lines.join('\n')}\n`;
}

/** What each system must find, as "transport address port" lines (sorted). */
export const EXPECTED = {
  /** RFC 3263 clients (NAPTR first): the SIPS+D2T branch, TLS to the three hosts. */
  rfc3263Naptr: ['tls 198.51.100.50 5061', 'tls 203.0.113.11 5061', 'tls 203.0.113.12 5061'],
  /** The addresses of the RFC 3263 zone, whatever the transport (the npm `sip` stack's view). */
  rfc3263Addresses: ['198.51.100.50', '203.0.113.11', '203.0.113.12'],
  /** The npm `sip` stack on the RFC 3263 zone: _sip._tcp and _sip._udp (it asks _sip._tls, which is absent). */
  rfc3263SipStack: [
    'tcp 198.51.100.50 5060',
    'tcp 203.0.113.11 5060',
    'tcp 203.0.113.12 5060',
    'udp 198.51.100.50 5060',
    'udp 203.0.113.11 5060',
    'udp 203.0.113.12 5060',
  ],
  /** Everyone on the SRV-only zone. */
  srvOnly: ['tcp 203.0.113.21 5060', 'tcp 203.0.113.22 5060', 'udp 203.0.113.21 5060', 'udp 203.0.113.22 5060'],
} as const;
