/** Where the sender of an incoming request listens: the flow's transport and address, the Via's sent-by port. */
import { describe, expect, it } from 'vitest';
import sip from 'sip';
import { sentByDestination } from '../src/sent-by.js';
import type { SipRequest } from '../src/sip-stack.js';

const parsed = (via: string): SipRequest =>
  sip.parse(
    `OPTIONS sip:a@b.example SIP/2.0\r\nVia: ${via}\r\nCall-ID: c\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`,
  ) as SipRequest;

describe('sentByDestination', () => {
  it('takes the port of the sent-by, the address the request came from, the transport of the flow', () => {
    const request = parsed('SIP/2.0/TCP proxy.example:5070;branch=z9hG4bK1');
    expect(sentByDestination(request, { protocol: 'TCP', address: '192.0.2.7', port: 40123 })).toEqual({
      transport: 'tcp',
      address: '192.0.2.7',
      port: 5070,
    });
  });

  it('uses the default port of the transport when the sent-by has none (5061 for TLS)', () => {
    expect(
      sentByDestination(parsed('SIP/2.0/TLS 192.0.2.7;branch=z9hG4bK1'), {
        protocol: 'TLS',
        address: '192.0.2.7',
        port: 40123,
      }),
    ).toEqual({ transport: 'tls', address: '192.0.2.7', port: 5061 });
    expect(
      sentByDestination(parsed('SIP/2.0/UDP 192.0.2.7;branch=z9hG4bK1'), {
        protocol: 'UDP',
        address: '192.0.2.7',
        port: 40123,
      }),
    ).toEqual({ transport: 'udp', address: '192.0.2.7', port: 5060 });
  });

  it('learns nothing from a Via it cannot trust for this flow', () => {
    const remote = { protocol: 'TCP', address: '2001:db8::7', port: 40123 };
    // The `sip` parser cuts "[2001:db8::7]:5070" at its first colon: the port is unknown.
    expect(sentByDestination(parsed('SIP/2.0/TCP [2001:db8::7]:5070;branch=z9hG4bK1'), remote)).toBeUndefined();
    expect(sentByDestination(parsed('SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bK1'), remote)).toBeUndefined();
    expect(sentByDestination({ method: 'OPTIONS', uri: 'sip:a@b', headers: {} }, remote)).toBeUndefined();
    expect(
      sentByDestination(parsed('SIP/2.0/SCTP 192.0.2.7;branch=z9hG4bK1'), { ...remote, protocol: 'SCTP' }),
    ).toBeUndefined();
  });
});
