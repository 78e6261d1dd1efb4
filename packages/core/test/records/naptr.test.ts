/**
 * Asterisk's tests/test_dns_naptr.c, ported with its vectors, plus what Asterisk gets wrong:
 * \7 is a valid back-reference, and records that tie keep their received order.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, parseNaptrRegexp, type NaptrData } from '@dnscore/core';
import { answerPacket, naptrRdata, type NaptrFields } from '../support/packets.js';
import { fakePlugin } from '../support/fake-plugin.js';

const NAPTR = 35;

async function resolveNaptr(records: NaptrFields[]) {
  const answer = answerPacket({
    question: { name: 'goose.feathers', type: NAPTR },
    answers: records.map((r) => ({ type: NAPTR, rdata: naptrRdata(r) })),
  });
  return new DnsCore([fakePlugin({ answer: { rcode: 0, answer } })]).resolve('goose.feathers', 'NAPTR');
}

const naptr = (
  order: number,
  preference: number,
  flags: string,
  services: string,
  regexp: string,
  replacement: string,
): NaptrFields => ({
  order,
  preference,
  flags,
  services,
  regexp,
  replacement,
});

const NOMINAL: NaptrFields[] = [
  naptr(200, 100, 'A', 'BLAH', '', 'goose.down'),
  naptr(300, 8, '', 'BLAH', '', 'goose.down'),
  naptr(300, 6, '3', 'BLAH', '', 'goose.down'),
  naptr(100, 2, '32', 'BLAH', '', 'goose.down'),
  naptr(400, 100, 'A32', 'BLAH', '', 'goose.down'),
  naptr(100, 700, '', '', '', 'goose.down'),
  naptr(500, 102, 'A', 'A+B12+C+D+EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE', '', 'goose.down'),
  naptr(500, 100, 'A', 'A+B12+C+D+EEEE', '', 'goose.down'),
  naptr(500, 101, 'A', 'BLAH', '!.*!horse.mane!', '.'),
  naptr(500, 99, 'A', 'BLAH', '0.*0horse.mane0', '.'),
  naptr(10, 100, 'A', 'BLAH', '!.*!\\!\\!\\!!', '.'),
  naptr(700, 999, 'A', 'BLAH', '!(.)(.)(.)(.)!\\1.m.\\2.n\\3.o\\4!', '.'),
];

const plain = (d: NaptrData): NaptrFields => naptr(d.order, d.preference, d.flags, d.services, d.regexp, d.replacement);

describe('NAPTR: nominal', () => {
  it('naptr_resolve: keeps all twelve records with every field, in order/preference order', async () => {
    const result = await resolveNaptr(NOMINAL);
    expect(result.dropped).toEqual([]);
    expect(result.records.map((r) => plain(r.data))).toEqual(
      [10, 3, 5, 0, 2, 1, 4, 9, 7, 8, 6, 11].map((i) => NOMINAL[i]),
    );
    expect(result.records.every((r) => r.ttl === 12345 && r.name === 'goose.feathers')).toBe(true);
  });

  it('accepts the back-reference \\7 (Asterisk rejects it)', async () => {
    const result = await resolveNaptr([
      naptr(1, 1, 'U', 'E2U+sip', '!^(.)(.)(.)(.)(.)(.)(.)$!sip:\\7@example.net!', '.'),
    ]);
    expect(result.dropped).toEqual([]);
    expect(result.records).toHaveLength(1);
  });

  it('keeps records that tie on order and preference in their received order (Asterisk qsort does not)', async () => {
    const ties = ['a', 'b', 'c', 'd', 'e', 'f'].map((x) =>
      naptr(100, 10, 's', 'SIP+D2U', '', `_sip._udp.${x}.example`),
    );
    const result = await resolveNaptr([naptr(200, 1, 's', 'SIP+D2T', '', 'later.example'), ...ties]);
    expect(result.records.map((r) => r.data.replacement)).toEqual([...ties.map((t) => t.replacement), 'later.example']);
  });

  it('accepts the flag family in either case, and an "i" regexp flag', async () => {
    const result = await resolveNaptr([
      naptr(1, 1, 's', 'SIP+D2U', '', 'x.example'),
      naptr(1, 2, 'u', 'E2U+sip', '!^.*$!sip:a@b!i', '.'),
    ]);
    expect(result.records).toHaveLength(2);
  });

  it('parses a regexp into a pattern and a replacement', () => {
    const parsed = parseNaptrRegexp('!^\\+1(.*)$!sip:\\1@example.net!');
    expect(parsed.delimiter).toBe('!');
    expect(parsed.pattern.exec('+15551234')?.[1]).toBe('5551234');
    expect(parsed.replacement).toBe('sip:\\1@example.net');
  });

  it('understands POSIX bracket expressions', () => {
    const parsed = parseNaptrRegexp('!^([[:digit:]]+)[\\]$!\\1!');
    expect(parsed.pattern.test('123\\')).toBe(true);
    expect(parsed.pattern.test('12a\\')).toBe(false);
  });
});

describe('NAPTR: off-nominal (every record dropped, with the rule it broke)', () => {
  const base = naptr(100, 100, 'A', 'BLAH', '!.*!horse.mane!', '.');

  async function expectDropped(record: NaptrFields, rule: string | RegExp): Promise<void> {
    const result = await resolveNaptr([record]);
    expect(result.records).toEqual([]);
    expect(result.dropped).toHaveLength(1);
    expect(result.dropped[0]!.rule).toMatch(rule);
  }

  it.each([
    ['flags len 255', { flags: 255 }],
    ['flags len 0', { flags: 0 }],
    ['services len 255', { services: 255 }],
    ['services len 2', { services: 2 }],
    ['regexp len 255', { regexp: 255 }],
    ['regexp len 3', { regexp: 3 }],
    ['all three 255', { flags: 255, services: 255, regexp: 255 }],
    ['flags 0, services 2, regexp 3', { flags: 0, services: 2, regexp: 3 }],
  ])('naptr_resolve_off_nominal_length: %s', async (_name, lengths) => {
    // A lying length makes the record misparse; either the RDLENGTH or a field rule catches it.
    await expectDropped({ ...base, lengths }, /^(rdlength|naptr-.*)$/);
  });

  it.each(['!', 'A!', '!A', 'sa', 'su', 'sp', 'as', 'au', 'ap', 'ua', 'us', 'up', 'pa', 'ps', 'pu'])(
    'naptr_resolve_off_nominal_flags: "%s"',
    async (flags) => expectDropped({ ...base, flags }, 'naptr-flags'),
  );

  it.each([
    'BLAH!',
    'BL!AH',
    '1SIP+D2U',
    'SIP+1D2U',
    '+D2U',
    'SIP+',
    'SIP++D2U',
    'SIPSIPSIPSIPSIPSIPSIPSIPSIPSIPSIP+D2U',
    'SIP+D2UD2UD2UD2UD2UD2UD2UD2UD2UD2UD2U',
  ])('naptr_resolve_off_nominal_services: "%s"', async (services) =>
    expectDropped({ ...base, services }, 'naptr-services'),
  );

  it.each([
    ['1.*1horse.mane1', /cannot be the delimiter/],
    ['!.*!horse.mane', /2 unescaped delimiters/],
    ['!.*!horse.mane\\!', /2 unescaped delimiters/],
    ['!.*!horse!mane!', /4 unescaped delimiters/],
    ['!.*!horse.mane!o', /flags "o"/],
    ['!.*!horse.\\0!', /neither a back-reference/],
    ['!(.*!horse.mane!', /does not compile/],
    ['!(.*)!\\2!', /back-reference \\2 but the pattern has 1 group/],
    ['\\.*\\x\\', /cannot be the delimiter/],
    ['i.*ixi', /cannot be the delimiter/],
    ['!(?=a)!x!', /does not compile/],
  ])('naptr_resolve_off_nominal_regexp: "%s"', async (regexp, reason) => {
    const result = await resolveNaptr([{ ...base, regexp }]);
    expect(result.records).toEqual([]);
    expect(result.dropped[0]!.rule).toBe('naptr-regexp');
    expect(result.dropped[0]!.reason).toMatch(reason);
  });

  it('naptr_resolve_off_nominal_interactions: a regexp together with a replacement', async () => {
    await expectDropped({ ...base, replacement: 'goose.down' }, 'naptr-regexp-and-replacement');
  });

  it('drops only the bad record and keeps the good ones', async () => {
    const result = await resolveNaptr([{ ...base, flags: 'sa' }, naptr(1, 1, 's', 'SIP+D2U', '', '_sip._udp.example')]);
    expect(result.records.map((r) => r.data.services)).toEqual(['SIP+D2U']);
    expect(result.dropped).toEqual([
      expect.objectContaining({ name: 'goose.feathers', type: 'NAPTR', rule: 'naptr-flags' }),
    ]);
  });
});
