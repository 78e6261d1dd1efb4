/** A zone of `count` names, n0 to n(count-1), each with one A record: the stress and TCP tests' load. */
export function aZone(origin: string, count: number, address: (i: number) => string): string {
  return [
    `$ORIGIN ${origin}.`,
    '$TTL 300',
    '@ IN SOA ns hostmaster 1 7200 900 1209600 60',
    '  IN NS ns',
    'ns IN A 127.0.0.1',
    ...Array.from({ length: count }, (_, i) => `n${i} IN A ${address(i)}`),
    '',
  ].join('\n');
}
