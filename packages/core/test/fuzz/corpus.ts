/**
 * The fuzz corpus: answers as recursive servers send them, DNSSEC records included (RRSIG,
 * DNSKEY, DS, NSEC, NSEC3 with the DO bit), for every shape the stub meets: data, CNAME chains
 * (in zone, across zones, unfinished), NXDOMAIN and NODATA with SOA, referrals, SRV with
 * additional addresses, NAPTR, TXT, TLSA, MX.
 */
import dnsPacket from 'dns-packet';

export interface Seed {
  readonly qname: string;
  readonly qtype: string;
  readonly packet: Uint8Array;
}

const SIG = {
  typeCovered: 'A',
  algorithm: 13,
  labels: 2,
  originalTTL: 300,
  expiration: 1_900_000_000,
  inception: 1_700_000_000,
  keyTag: 12345,
  signersName: 'bank.example',
  signature: Buffer.alloc(64, 7),
};
const SOA = {
  mname: 'ns.bank.example',
  rname: 'hostmaster.bank.example',
  serial: 2026120101,
  refresh: 7200,
  retry: 3600,
  expire: 1_209_600,
  minimum: 300,
};

type Answer = dnsPacket.Answer;

function seed(
  qname: string,
  qtype: string,
  rcode: string,
  answers: Answer[],
  authorities: Answer[] = [],
  additionals: Answer[] = [],
): Seed {
  const packet = dnsPacket.encode({
    id: 4242,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (rcode === 'NXDOMAIN' ? 3 : 0),
    questions: [{ name: qname, type: qtype as dnsPacket.RecordType, class: 'IN' }],
    answers,
    authorities,
    additionals: [
      ...additionals,
      { type: 'OPT', name: '.', udpPayloadSize: 1232, flags: dnsPacket.DNSSEC_OK } as unknown as Answer,
    ],
  });
  return { qname, qtype, packet: Uint8Array.from(packet) };
}

const rr = (name: string, type: string, data: unknown, ttl = 300): Answer =>
  ({ name, type, class: 'IN', ttl, data }) as Answer;

export const CORPUS: readonly Seed[] = [
  seed('www.bank.example', 'A', 'NOERROR', [
    rr('www.bank.example', 'A', '192.0.2.1'),
    rr('www.bank.example', 'RRSIG', SIG),
  ]),
  seed('www.bank.example', 'AAAA', 'NOERROR', [rr('www.bank.example', 'AAAA', '2001:db8::1')]),
  seed('alias.bank.example', 'A', 'NOERROR', [
    rr('alias.bank.example', 'CNAME', 'edge.alias.bank.example', 600),
    rr('edge.alias.bank.example', 'A', '192.0.2.2', 60),
  ]),
  seed('cdn.bank.example', 'A', 'NOERROR', [
    rr('cdn.bank.example', 'CNAME', 'x.cdn.elsewhere.example'),
    rr('x.cdn.elsewhere.example', 'A', '198.51.100.7'),
  ]),
  seed('dangling.bank.example', 'A', 'NOERROR', [rr('dangling.bank.example', 'CNAME', 'gone.other.example')]),
  seed(
    'nx.bank.example',
    'A',
    'NXDOMAIN',
    [],
    [
      rr('bank.example', 'SOA', SOA, 3600),
      rr('bank.example', 'RRSIG', { ...SIG, typeCovered: 'SOA' }),
      rr('bank.example', 'NSEC', {
        nextDomain: 'www.bank.example',
        rrtypes: ['A', 'NS', 'SOA', 'RRSIG', 'NSEC', 'DNSKEY'],
      }),
    ],
  ),
  seed(
    'www.bank.example',
    'MX',
    'NOERROR',
    [],
    [
      rr('bank.example', 'SOA', SOA, 3600),
      rr('0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.bank.example', 'NSEC3', {
        algorithm: 1,
        flags: 0,
        iterations: 0,
        salt: Buffer.alloc(0),
        nextDomain: Buffer.alloc(20, 3),
        rrtypes: ['A', 'RRSIG'],
      }),
    ],
  ),
  seed('bank.example', 'DNSKEY', 'NOERROR', [
    rr('bank.example', 'DNSKEY', { flags: 257, algorithm: 13, key: Buffer.alloc(64, 9) }),
    rr('bank.example', 'DNSKEY', { flags: 256, algorithm: 13, key: Buffer.alloc(64, 8) }),
    rr('bank.example', 'RRSIG', { ...SIG, typeCovered: 'DNSKEY' }),
  ]),
  seed('bank.example', 'DS', 'NOERROR', [
    rr('bank.example', 'DS', { keyTag: 12345, algorithm: 13, digestType: 2, digest: Buffer.alloc(32, 5) }),
  ]),
  seed(
    '_sip._udp.biloxi.example',
    'SRV',
    'NOERROR',
    [
      rr('_sip._udp.biloxi.example', 'SRV', { priority: 10, weight: 60, port: 5060, target: 'sip1.biloxi.example' }),
      rr('_sip._udp.biloxi.example', 'SRV', { priority: 20, weight: 0, port: 5060, target: 'sip2.biloxi.example' }),
    ],
    [],
    [rr('sip1.biloxi.example', 'A', '203.0.113.11'), rr('www.bank.example', 'A', '6.6.6.6')],
  ),
  seed('biloxi.example', 'NAPTR', 'NOERROR', [
    rr('biloxi.example', 'NAPTR', {
      order: 10,
      preference: 10,
      flags: 's',
      services: 'SIPS+D2T',
      regexp: '',
      replacement: '_sips._tcp.biloxi.example',
    }),
    rr('biloxi.example', 'NAPTR', {
      order: 20,
      preference: 10,
      flags: 's',
      services: 'SIP+D2U',
      regexp: '',
      replacement: '_sip._udp.biloxi.example',
    }),
  ]),
  seed('t.bank.example', 'TXT', 'NOERROR', [rr('t.bank.example', 'TXT', ['v=spf1 -all', 'two'])]),
  seed('_443._tcp.bank.example', 'TLSA', 'NOERROR', [
    rr('_443._tcp.bank.example', 'TLSA', { usage: 3, selector: 1, matchingType: 1, certificate: Buffer.alloc(32, 1) }),
  ]),
  seed('bank.example', 'MX', 'NOERROR', [rr('bank.example', 'MX', { preference: 10, exchange: 'mail.bank.example' })]),
  seed(
    'sub.bank.example',
    'A',
    'NOERROR',
    [],
    [rr('sub.bank.example', 'NS', 'ns.sub.bank.example')],
    [rr('ns.sub.bank.example', 'A', '192.0.2.53')],
  ),
];
