/**
 * The zone the node-dns tests ask, both through the zone backend and through nsd. Every address
 * is on loopback, so a client that connects to a name reaches a server of the test.
 */
export const ZONE_NAME = 'node.example';

export function nodeZone(): string {
  return `$ORIGIN node.example.
$TTL 300
@          IN SOA ns1.node.example. hostmaster.node.example. 2026120101 3600 600 86400 60
@          IN NS  ns1
ns1        IN A   127.0.0.1
both       IN A   127.0.0.1
both   120 IN AAAA ::1
v4         IN A   127.0.0.1
v4         IN A   127.0.0.2
v6         IN AAAA ::1
signed     IN A   127.0.0.1
signed     IN AAAA ::1
bogus      IN A   127.0.0.6
alias      IN CNAME both
brief   10 IN CNAME both
text       IN TXT "hello" "world"
text       IN TXT "v=spf1 -all"
bytes      IN TXT "caf\\195\\169" "\\255\\000x" ""
mail       IN MX  10 mx1.node.example.
mail       IN MX  20 mx2.node.example.
nomail     IN MX  0 .
mx1        IN A   127.0.0.3
mx2        IN A   127.0.0.4
_sip._udp  IN SRV 10 60 5060 sip1.node.example.
_sip._udp  IN SRV 10 40 5062 sip2.node.example.
_sip._udp  IN SRV 20 0 5064 sip3.node.example.
sip1       IN A   127.0.0.1
sip2       IN A   127.0.0.1
sip3       IN A   127.0.0.1
@          IN NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.node.example.
@          IN NAPTR 20 50 "u" "E2U+sip" "!^.*$!sip:info@node.example!" .
ca         IN TYPE257 ${caa(0, 'issue', 'ca.example')}
ca         IN TYPE257 ${caa(128, 'iodef', 'mailto:security@node.example')}
`;
}

export const REVERSE_ZONE_NAME = '127.in-addr.arpa';

export function reverseZone(): string {
  return `$ORIGIN 127.in-addr.arpa.
$TTL 300
@          IN SOA ns1.node.example. hostmaster.node.example. 2026120101 3600 600 86400 60
@          IN NS  ns1.node.example.
1.0.0      IN PTR both.node.example.
1.0.0      IN PTR localhost.
2.0.0      IN PTR v4.node.example.
2.0.0      IN PTR two.node.example.
`;
}

/** Both zones, for nsd (startNsd) and for the zone backend. */
export function testZones(): { name: string; text: string }[] {
  return [
    { name: ZONE_NAME, text: nodeZone() },
    { name: REVERSE_ZONE_NAME, text: reverseZone() },
  ];
}

/** CAA RDATA (RFC 8659) in the RFC 3597 form, which both nsd and the zone backend read. */
function caa(flags: number, tag: string, value: string): string {
  const rdata = Buffer.concat([Buffer.from([flags, tag.length]), Buffer.from(tag), Buffer.from(value)]);
  return `\\# ${rdata.length} ${rdata.toString('hex')}`;
}
