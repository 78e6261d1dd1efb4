/**
 * An IPv4-mapped IPv6 address (RFC 4291 section 2.5.5.2) names an IPv4 node: a dual-stack socket
 * reports an IPv4 peer as ::ffff:a.b.c.d. The penalty box and Call-ID affinity key it as that
 * IPv4 address, so one server is one destination whichever way it was reached.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator } from '../src/locator.js';
import { destinationKey, normalizeDestination } from '../src/penalty-box.js';
import { lines, setup } from './support/fixtures.js';

const URI = 'sip:bob@biloxi.example;transport=udp';

describe('IPv4-mapped IPv6 destinations', () => {
  it.each([
    ['::ffff:192.0.2.1', 'udp 192.0.2.1 5060'],
    ['::FFFF:c000:201', 'udp 192.0.2.1 5060'],
    ['[0:0:0:0:0:ffff:192.0.2.1]', 'udp 192.0.2.1 5060'],
    // Not mapped: IPv4-compatible (deprecated), NAT64 and IPv4-translated addresses stay IPv6.
    ['::192.0.2.1', 'udp ::192.0.2.1 5060'],
    ['64:ff9b::192.0.2.1', 'udp 64:ff9b::c000:201 5060'],
    ['::ffff:0:192.0.2.1', 'udp ::ffff:0:c000:201 5060'],
  ])('%s is keyed %s', (address, key) => {
    expect(destinationKey({ transport: 'udp', address, port: 5060 })).toBe(key);
  });

  it('normalizeDestination gives the IPv4 address', () => {
    expect(normalizeDestination({ transport: 'tcp', address: '::ffff:203.0.113.11', port: 5060 })).toEqual({
      transport: 'tcp',
      address: '203.0.113.11',
      port: 5060,
    });
  });

  it('a server boxed under its mapped address is boxed for its IPv4 target', async () => {
    const { locator } = setup();
    const [first] = (await locator.resolve(URI)).targets;
    locator.penaltyBox.markFailed({ transport: 'udp', address: `::ffff:${first!.address}`, port: first!.port });
    expect(locator.penaltyBox.isPenalized(first!)).toBe(true);
  });

  it('a Call-ID learned from a dual-stack socket pins the IPv4 target', async () => {
    const { locator } = setup();
    const targets = (await locator.resolve(URI)).targets;
    const last = targets[targets.length - 1]!;
    locator.dialogs.learnIncoming('dual', { transport: 'udp', address: `::ffff:${last.address}`, port: 5060 });
    const attempt = await locator.cursor(URI, { callId: 'dual' }).next();
    expect(attempt).toMatchObject({ pinned: true, target: { address: last.address } });
  });
});

describe('an AAAA record holding an IPv4-mapped address', () => {
  const zone = [
    '$ORIGIN m.example.',
    '$TTL 300',
    '@ IN SOA ns h 1 7200 900 1209600 300',
    '@ IN NS ns',
    'ns IN A 192.0.2.53',
    'both IN AAAA ::ffff:192.0.2.60',
    'both IN AAAA 2001:db8::60',
    'both IN A 192.0.2.60',
    'only IN AAAA ::ffff:192.0.2.61',
    '_sip._udp.srv IN SRV 10 10 5060 both',
    '_sip._udp.in IN SRV 10 10 5060 h.in',
    'h.in IN AAAA ::ffff:192.0.2.62',
    'h.in IN A 192.0.2.62',
  ].join('\n');
  const locator = (): SipLocator =>
    new SipLocator(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(1) }));

  it('is left out when an A record of the host names the same node', async () => {
    const resolution = await locator().resolve('sip:both.m.example:5060');
    expect(lines(resolution.targets)).toEqual([
      'udp [2001:db8::60]:5060 both.m.example',
      'udp 192.0.2.60:5060 both.m.example',
    ]);
  });

  it('is left out of an SRV target alike', async () => {
    const resolution = await locator().resolve('sip:srv.m.example;transport=udp');
    expect(lines(resolution.targets)).toEqual([
      'udp [2001:db8::60]:5060 both.m.example',
      'udp 192.0.2.60:5060 both.m.example',
    ]);
  });

  it('is left out of additional-section addresses alike', async () => {
    const resolution = await locator().resolve('sip:in.m.example;transport=udp', { stepThrough: true });
    expect(resolution.steps).toContainEqual(expect.objectContaining({ kind: 'additional', host: 'h.in.m.example' }));
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.62:5060 h.in.m.example']);
  });

  it('is kept when no A record names that node', async () => {
    const resolution = await locator().resolve('sip:only.m.example:5060');
    expect(lines(resolution.targets)).toEqual(['udp [::ffff:192.0.2.61]:5060 only.m.example']);
  });
});
