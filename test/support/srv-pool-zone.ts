/**
 * A zone `pool.example` whose `_sip._udp` SRV records are given as "priority weight host", each
 * host with one A record (192.0.2.1, .2, ... in order of first mention): the stage for tests of
 * the RFC 2782 draw.
 */
export function srvPoolZone(records: readonly string[]): string {
  const hosts = [...new Set(records.map((r) => r.split(' ')[2]!))];
  return [
    '$ORIGIN pool.example.',
    '$TTL 300',
    '@ IN SOA ns h 1 3600 600 86400 300',
    ...records.map((r) => {
      const [priority, weight, host] = r.split(' ');
      return `_sip._udp IN SRV ${priority} ${weight} 5060 ${host}`;
    }),
    ...hosts.map((h, i) => `${h} IN A 192.0.2.${i + 1}`),
  ].join('\n');
}
