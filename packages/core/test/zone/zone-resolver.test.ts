/**
 * The zone resolver answers like an authoritative server (RFC 1034 section 4.3.2, RFC 2308,
 * RFC 4592, RFC 6604), through DnsCore so the core's builder checks every answer it makes.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, NotAuthoritativeError, ZoneFileError, ZoneResolver, formatRecord, makeQuery } from '@dnscore/core';
import { parseMessage } from '@dnscore/core/plugin';

const EXAMPLE = `$ORIGIN example.
$TTL 3600
@          IN SOA ns1 hostmaster 1 7200 900 1209600 300
           IN NS  ns1
ns1        IN A   192.0.2.53
www        IN A   192.0.2.1
           IN AAAA 2001:db8::1
alias      IN CNAME www
chain      IN CNAME alias
dangling   IN CNAME nowhere
outside    IN CNAME www.elsewhere.test.
loop1      IN CNAME loop2
loop2      IN CNAME loop1
_sip._udp  IN SRV 10 60 5060 sip1
           IN SRV 20 0 5060 sip9.elsewhere.test.
           IN SRV 0 0 0 .
sip1       IN A   192.0.2.11
           IN AAAA 2001:db8::11
@          IN NAPTR 100 50 "s" "SIP+D2U" "" _sip._udp
@          IN MX 10 mail
mail       IN A 192.0.2.25
*.wild     IN A 192.0.2.99
*.wild     IN TXT "wildcard"
a.b.c.ent  IN A 192.0.2.7
child      IN NS ns.child
ns.child   IN A 192.0.2.77
`;

const SUB = `$ORIGIN sub.example.
$TTL 60
@ IN SOA ns1.example. hostmaster.example. 1 7200 900 1209600 30
x IN A 198.51.100.1
`;

const zones = new ZoneResolver({
  zones: [
    { text: EXAMPLE, file: 'example.zone' },
    { text: SUB, file: 'sub.zone' },
  ],
});
const core = new DnsCore([zones]);
const lines = (records: readonly Parameters<typeof formatRecord>[0][]) => records.map(formatRecord);

describe('zone resolver: nominal', () => {
  it('answers with the records and their TTL, authoritatively', async () => {
    const result = await core.resolve('www.example', 'A');
    expect(lines(result.records)).toEqual(['www.example.\t3600\tIN\tA\t192.0.2.1']);
    expect(result.resolver).toBe('zone');
    expect(parseMessage(result.answer).header).toMatchObject({ aa: true, rcode: 0 });
  });

  it('follows a CNAME chain and reports the canonical name', async () => {
    const result = await core.resolve('chain.example', 'AAAA');
    expect(result.canonical).toBe('www.example');
    expect(lines(result.records)).toEqual(['www.example.\t3600\tIN\tAAAA\t2001:db8::1']);
    // The chain leaves chain.example's domain, so the core asks www.example again (issue 21 item 7);
    // the zone's own answer holds the whole chain.
    const own = await new DnsCore([zones], { reaskCrossZoneCnames: false }).resolve('chain.example', 'AAAA');
    expect(parseMessage(own.answer).answers.map((r) => r.type)).toEqual([5, 5, 28]);
  });

  it('answers a CNAME question with the CNAME itself', async () => {
    expect(lines((await core.resolve('alias.example', 'CNAME')).records)).toEqual([
      'alias.example.\t3600\tIN\tCNAME\twww.example.',
    ]);
  });

  it('tells NXDOMAIN from NODATA, both with the SOA at min(SOA TTL, MINIMUM)', async () => {
    const nx = await core.resolve('nope.example', 'A');
    expect(nx.rcodeName).toBe('NXDOMAIN');
    expect(nx.negativeTtl).toBe(300);
    expect(lines(nx.authority)).toEqual([
      'example.\t300\tIN\tSOA\tns1.example. hostmaster.example. 1 7200 900 1209600 300',
    ]);
    const nodata = await core.resolve('www.example', 'TXT');
    expect(nodata.rcodeName).toBe('NOERROR');
    expect(nodata.noData).toBe(true);
    expect(nodata.negativeTtl).toBe(300);
  });

  it('answers NXDOMAIN at the end of a dangling CNAME (RFC 6604)', async () => {
    const result = await core.resolve('dangling.example', 'A');
    expect(result.rcodeName).toBe('NXDOMAIN');
    expect(result.canonical).toBe('nowhere.example');
  });

  it('stops a chain that leaves its zones, with the CNAME; the core then re-asks its end', async () => {
    const trusting = new DnsCore([zones], { reaskCrossZoneCnames: false });
    const result = await trusting.resolve('outside.example', 'A');
    expect(result.rcode).toBe(0);
    expect(result.canonical).toBe('www.elsewhere.test');
    expect(result.records).toEqual([]);
    // By default the end of a chain into another zone is asked on its own: no zone holds it here.
    await expect(core.resolve('outside.example', 'A')).rejects.toBeInstanceOf(NotAuthoritativeError);
  });

  it('answers SERVFAIL for a CNAME loop', async () => {
    expect((await core.resolve('loop1.example', 'A')).rcodeName).toBe('SERVFAIL');
  });

  it('puts A/AAAA of SRV targets held by the zone in the additional section, not those of other zones', async () => {
    const result = await core.resolve('_sip._udp.example', 'SRV');
    expect(result.records.map((r) => r.data.target)).toEqual(['.', 'sip1.example', 'sip9.elsewhere.test']);
    expect(lines(result.additional)).toEqual([
      'sip1.example.\t3600\tIN\tA\t192.0.2.11',
      'sip1.example.\t3600\tIN\tAAAA\t2001:db8::11',
    ]);
  });

  it('adds A/AAAA of NAPTR replacements and MX exchanges when the zone holds them', async () => {
    expect((await core.resolve('example', 'NAPTR')).additional).toEqual([]); // _sip._udp has no address
    expect(lines((await core.resolve('example', 'MX')).additional)).toEqual(['mail.example.\t3600\tIN\tA\t192.0.2.25']);
  });

  it('synthesizes answers from a wildcard (RFC 4592), owned by the name asked', async () => {
    const result = await core.resolve('anything.wild.example', 'A');
    expect(lines(result.records)).toEqual(['anything.wild.example.\t3600\tIN\tA\t192.0.2.99']);
    expect((await core.resolve('deep.er.wild.example', 'TXT')).records.map((r) => r.data)).toEqual([['wildcard']]);
    expect((await core.resolve('anything.wild.example', 'MX')).noData).toBe(true);
  });

  it('answers NODATA, not NXDOMAIN, for an empty non-terminal', async () => {
    const result = await core.resolve('b.c.ent.example', 'A');
    expect(result.rcodeName).toBe('NOERROR');
    expect(result.noData).toBe(true);
    expect((await core.resolve('x.c.ent.example', 'A')).rcodeName).toBe('NXDOMAIN');
  });

  it('refers below a zone cut, with glue, not authoritatively', async () => {
    const result = await core.resolve('host.child.example', 'A');
    const message = parseMessage(result.answer);
    expect(message.header.aa).toBe(false);
    expect(lines(result.authority)).toEqual(['child.example.\t3600\tIN\tNS\tns.child.example.']);
    expect(message.additionals.map((r) => r.name)).toEqual(['ns.child.example']); // the glue is sent...
    expect(result.additional).toEqual([]); // ...but a stub does not use data outside the name asked
    expect(result.dropped).toEqual([expect.objectContaining({ name: 'ns.child.example', rule: 'out-of-bailiwick' })]);
  });

  it('answers from the most specific zone', async () => {
    expect(lines((await core.resolve('x.sub.example', 'A')).records)).toEqual([
      'x.sub.example.\t60\tIN\tA\t198.51.100.1',
    ]);
    expect((await core.resolve('y.sub.example', 'A')).negativeTtl).toBe(30);
  });

  it('matches names case-insensitively and answers ANY with every record', async () => {
    expect((await core.resolve('WWW.Example', 'A')).records).toHaveLength(1);
    expect((await core.resolve('www.example', 'ANY')).records.map((r) => r.type)).toEqual(['A', 'AAAA']);
  });

  it('serves a DNAME record written in its presentation form', async () => {
    const dname = new ZoneResolver({ zones: [{ text: `${SUB}old IN DNAME new.example.\n`, file: 'sub.zone' }] });
    const result = await new DnsCore([dname]).resolve('old.sub.example', 'DNAME');
    expect(lines(result.records)).toEqual(['old.sub.example.\t60\tIN\tDNAME\tnew.example.']);
  });

  it('loads the example zone file', async () => {
    const file = new ZoneResolver({
      files: [new URL('../../../../examples/zones/biloxi.example.zone', import.meta.url).pathname],
    });
    const result = await new DnsCore([file]).resolve('_sips._tcp.biloxi.example', 'SRV');
    expect(result.records.map((r) => [r.data.priority, r.data.port])).toEqual(
      expect.arrayContaining([
        [10, 5061],
        [20, 5061],
      ]),
    );
  });
});

describe('zone resolver: off-nominal', () => {
  it('is not authoritative outside its zones (so the next resolver may answer)', async () => {
    expect(() => zones.answer(makeQuery('www.elsewhere.test', 'A'))).toThrow(NotAuthoritativeError);
    await expect(core.resolve('www.elsewhere.test', 'A')).rejects.toBeInstanceOf(NotAuthoritativeError);
    await expect(core.resolve('www.example', 'A', { class: 'CH' })).rejects.toBeInstanceOf(NotAuthoritativeError);
  });

  it.each([
    ['no SOA', '$TTL 60\n$ORIGIN example.\nwww IN A 192.0.2.1\n', /example.zone:1: the zone has no SOA record/],
    [
      'CNAME and other data',
      '$TTL 60\n$ORIGIN example.\n@ IN SOA a b 1 2 3 4 5\nx IN A 192.0.2.1\nx IN CNAME y\n',
      /example.zone:5: x.example has a CNAME and other data/,
    ],
    [
      'two CNAMEs',
      '$TTL 60\n$ORIGIN example.\n@ IN SOA a b 1 2 3 4 5\nx IN CNAME y\nx IN CNAME z\n',
      /example.zone:5: x.example has more than one CNAME/,
    ],
    [
      'out-of-zone data',
      '$TTL 60\n$ORIGIN example.\n@ IN SOA a b 1 2 3 4 5\nwww.other. IN A 192.0.2.1\n',
      /example.zone:4: www.other is outside the zone example/,
    ],
    [
      'a second SOA',
      '$TTL 60\n$ORIGIN example.\n@ IN SOA a b 1 2 3 4 5\nsub IN SOA a b 1 2 3 4 5\n',
      /example.zone:4: a second SOA/,
    ],
  ])('refuses a zone with %s', (_name, text, message) => {
    expect(() => new ZoneResolver({ zones: [{ text, file: 'example.zone' }] })).toThrow(ZoneFileError);
    expect(() => new ZoneResolver({ zones: [{ text, file: 'example.zone' }] })).toThrow(message);
  });

  it('refuses a zone loaded twice', () => {
    expect(() => new ZoneResolver({ zones: [{ text: SUB }, { text: SUB }] })).toThrow(
      /zone sub.example is loaded twice/,
    );
  });

  it('names a zone file it cannot read', () => {
    expect(() => new ZoneResolver({ files: ['/nonexistent.zone'] })).toThrow(
      /\/nonexistent.zone:0: cannot read the zone file: ENOENT/,
    );
  });
});
