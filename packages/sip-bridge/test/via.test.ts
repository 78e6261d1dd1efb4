/**
 * Via fields read per RFC 3261 25.1 where `sip` 0.0.6 cannot (an IPv6 reference in sent-by):
 * the same shape `sip.parse` gives an IPv4 Via, every Via of the message in order, and a typed
 * refusal for what breaks the grammar; linear whatever the input.
 */
import sip from 'sip';
import { describe, expect, it } from 'vitest';
import { MAX_VIA_PARAMS, parseVia, repairVias } from '../src/via.js';
import type { SipMessage, SipStack, SipVia } from '../src/sip-stack.js';

const stack = sip as unknown as SipStack;

function message(...vias: string[]): Buffer {
  return Buffer.from(
    [
      'OPTIONS sip:bob@[2001:db8::9] SIP/2.0',
      ...vias,
      'To: <sip:bob@example.com>',
      'From: <sip:alice@example.com>;tag=1',
      'Call-ID: via-test',
      'CSeq: 1 OPTIONS',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n'),
    'latin1',
  );
}

/** What the bridge hands the stack: `sip.parse`, then the Vias read again where needed. */
function parsed(bytes: Buffer): { message: SipMessage; refused: ReturnType<typeof repairVias> } {
  const m = stack.parse(bytes)!;
  return { message: m, refused: repairVias(m, bytes) };
}

describe('Via: an IPv6 reference gets the shape sip gives an IPv4 Via', () => {
  it('sent-by [2001:db8::1]:5070 with its parameters, as sip reads 192.0.2.1:5070', () => {
    const v4 = stack.parse(message('Via: SIP/2.0/UDP 192.0.2.1:5070;branch=z9hG4bK1;rport;received=192.0.2.7'))!;
    const { message: v6, refused } = parsed(
      message('Via: SIP/2.0/UDP [2001:db8::1]:5070;branch=z9hG4bK1;rport;received=192.0.2.7'),
    );
    expect(refused).toBeUndefined();
    expect(v6.headers.via).toEqual([{ ...v4.headers.via![0]!, host: '[2001:db8::1]' }]);
    expect(Object.keys(v6.headers.via![0]!)).toEqual(Object.keys(v4.headers.via![0]!));
    expect(Object.keys(v6.headers.via![0]!.params)).toEqual(['branch', 'rport', 'received']);
    // And `sip` writes it back as it came.
    const response = stack.makeResponse(v6 as Parameters<SipStack['makeResponse']>[0], 200, 'OK');
    expect(stack.stringify(response)).toContain(
      'Via: SIP/2.0/UDP [2001:db8::1]:5070;branch=z9hG4bK1;rport;received=192.0.2.7\r\n',
    );
  });

  it('no port: undefined, as for IPv4; received an IPv6address (no brackets); maddr a reference', () => {
    const v4 = stack.parse(message('Via: SIP/2.0/TCP 192.0.2.1;branch=z9hG4bKa'))!;
    const { message: v6 } = parsed(
      message('Via: SIP/2.0/TCP [::1];branch=z9hG4bKa;received=2001:db8::7;maddr=[ff02::1];ttl=1;x="a, b;c"'),
    );
    expect(v6.headers.via).toEqual([
      {
        ...v4.headers.via![0]!,
        host: '[::1]',
        params: { branch: 'z9hG4bKa', received: '2001:db8::7', maddr: '[ff02::1]', ttl: '1', x: '"a, b;c"' },
      },
    ]);
    expect(Object.hasOwn(v6.headers.via![0]!, 'port')).toBe(true);
  });

  it('every Via of the message in order: several in a field, several fields, compact v, folds, SWS', () => {
    const { message: m, refused } = parsed(
      message(
        'Via: SIP/2.0/TCP [::1]:5071;branch=z9hG4bKtop , SIP / 2.0 / UDP 192.0.2.1 : 5060 ; branch = z9hG4bK2',
        'v: SIP/2.0/TLS proxy.example.com;BRANCH=z9hG4bK3,',
        ' SIP/2.0/UDP [2001:db8::2]:5062;branch=z9hG4bK4',
      ),
    );
    expect(refused).toBeUndefined();
    expect(m.headers.via!.map((v) => `${v.protocol} ${v.host} ${v.port} ${v.params.branch}`)).toEqual([
      'TCP [::1] 5071 z9hG4bKtop',
      'UDP 192.0.2.1 5060 z9hG4bK2',
      'TLS proxy.example.com undefined z9hG4bK3',
      'UDP [2001:db8::2] 5062 z9hG4bK4',
    ]);
  });

  it("leaves sip's reading alone when no Via holds an IPv6 reference (the Request-URI may)", () => {
    const bytes = message('Via: SIP/2.0/UDP 192.0.2.1:5070;branch=z9hG4bK1');
    const m = stack.parse(bytes)!;
    const before = m.headers.via;
    expect(repairVias(m, bytes)).toBeUndefined();
    expect(m.headers.via).toBe(before);
  });

  it('a parameter named __proto__ stays a parameter', () => {
    const vias: SipVia[] = [];
    expect(parseVia('SIP/2.0/UDP [::1];__proto__=x;branch=z9hG4bK1', vias)).toBeUndefined();
    expect(Object.getPrototypeOf(vias[0]!.params)).toBe(Object.prototype);
    expect(Object.entries(vias[0]!.params)).toEqual([
      ['__proto__', 'x'],
      ['branch', 'z9hG4bK1'],
    ]);
  });
});

describe('Via: hostile or broken input is a typed refusal', () => {
  const refusal = (via: string) => parsed(message(`Via: ${via}`)).refused;

  it.each([
    ['SIP/2.0/UDP [2001:db8::1:5070;branch=z9hG4bK1', 'sent-by host is not'],
    ['SIP/2.0/UDP [2001:db8::1', 'sent-by host is not'],
    ['SIP/2.0/UDP [192.0.2.1]:5060', 'sent-by host is not'],
    ['SIP/2.0/UDP [2001:db8::1]:99999;branch=a', 'port is not a port'],
    ['SIP/2.0/UDP [::1]:;branch=a', 'port is not a port'],
    ['SIP/2.0/UDP [::1];branch=', 'has no valid value'],
    ['SIP/2.0/UDP [::1];branch="unterminated', 'has no valid value'],
    ['SIP/2.0/UDP [::1];=x', 'has no name'],
    ['SIP/2.0/UDP [::1] junk', 'unexpected text'],
    ['SIP/2.0/UDP [::1], ', 'does not start with SIP/'],
    ['HTTP/1.1/TCP [::1]', 'does not start with SIP/'],
    ['SIP/x/UDP [::1]', 'no SIP version'],
    ['SIP/2.0/UDP[::1]', 'no transport'],
  ])('%s', (via, why) => {
    const refused = refusal(via);
    expect(refused?.reason).toBe('malformed-via');
    expect(refused?.detail).toContain(why);
  });

  it(`more than ${MAX_VIA_PARAMS} parameters are refused; ${MAX_VIA_PARAMS} pass`, () => {
    const params = (n: number) => Array.from({ length: n }, (_, i) => `;p${i}=v`).join('');
    expect(refusal(`SIP/2.0/UDP [::1]${params(MAX_VIA_PARAMS)}`)).toBeUndefined();
    expect(refusal(`SIP/2.0/UDP [::1]${params(MAX_VIA_PARAMS + 1)}`)).toEqual({
      reason: 'malformed-via',
      detail: `a Via has more than ${MAX_VIA_PARAMS} parameters`,
    });
  });

  it('a huge parameter passes whole (one pass); a huge bracket run is refused at its bound', () => {
    const vias: SipVia[] = [];
    const huge = 'a'.repeat(200_000);
    expect(parseVia(`SIP/2.0/UDP [::1];branch=z9hG4bK${huge};p="${huge}"`, vias)).toBeUndefined();
    expect(vias[0]!.params.branch).toBe(`z9hG4bK${huge}`);
    expect(vias[0]!.params.p).toBe(`"${huge}"`);
    expect(parseVia(`SIP/2.0/UDP [${':'.repeat(200_000)}]`, [])).toContain('sent-by host is not');
    expect(parseVia(`SIP/2.0/UDP [::1]${';'.repeat(10)}`, [])).toContain('has no name');
  });

  it('control characters in a refusal are not echoed', () => {
    expect(refusal('SIP/2.0/UDP [::1] \u001b[31mred')?.detail).toBe('unexpected text in a Via: "?[31mred"');
  });
});
