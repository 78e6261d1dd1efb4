/** Errors: one base in the core, a stable code each. */
import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError } from '@dnscore/core';
import * as defaults from '../src/defaults.js';
import * as sip from '../src/errors.js';
import { DEFAULT_SIP_PORT, DEFAULT_SIPS_PORT } from '../src/transport.js';

describe('errors', () => {
  it('every error has its stable code and extends the core DnsError', () => {
    const errors = [
      [new sip.SipError('x'), 'SIP_ERR'],
      [new sip.InvalidSipUriError('sip:', 'the host is empty', 4), 'SIP_ERR_INVALID_URI'],
      [new sip.SipsWithoutTlsError('x'), 'SIP_ERR_SIPS_WITHOUT_TLS'],
      [new sip.UnsupportedTransportError('x', 'sctp'), 'SIP_ERR_UNSUPPORTED_TRANSPORT'],
      [new sip.AddressFamilyError('x'), 'SIP_ERR_ADDRESS_FAMILY'],
      [new sip.BogusAnswerError('a.example', 'SRV', 'expired'), 'SIP_ERR_BOGUS'],
      [new sip.NoTargetsError('x'), 'SIP_ERR_NO_TARGETS'],
      [new sip.TargetsExhaustedError('x', 3), 'SIP_ERR_TARGETS_EXHAUSTED'],
      [new sip.RequestTooLargeError('x', 2000, 'udp'), 'SIP_ERR_REQUEST_TOO_LARGE'],
    ] as const;
    for (const [error, code] of errors) {
      expect(error).toBeInstanceOf(DnsError);
      expect(error.code).toBe(code);
      expect(error.definite).toBe(true);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(new sip.InvalidSipUriError('sip:', 'the host is empty')).toBeInstanceOf(InvalidArgumentError);
    expect(new sip.NoTargetsError('x')).toBeInstanceOf(sip.SipError);
  });

  it('carry their fields', () => {
    expect(new sip.BogusAnswerError('a.example', 'SRV', 'expired')).toMatchObject({
      qname: 'a.example',
      qtype: 'SRV',
      whyBogus: 'expired',
    });
    expect(new sip.InvalidSipUriError('sip:', 'the host is empty', 4)).toMatchObject({
      uri: 'sip:',
      reason: 'the host is empty',
      position: 4,
    });
    expect(new sip.NoTargetsError('x', [new Error('t')]).dnsErrors).toHaveLength(1);
  });
});

describe('defaults', () => {
  it('are the documented values', () => {
    expect({
      transports: defaults.DEFAULT_TRANSPORTS,
      sip: DEFAULT_SIP_PORT,
      sips: DEFAULT_SIPS_PORT,
      maxTargets: defaults.DEFAULT_MAX_TARGETS,
      timer: defaults.DEFAULT_TARGET_TIMEOUT_MS,
      penalty: defaults.DEFAULT_PENALTY_MS,
      retryAfter: defaults.DEFAULT_MAX_RETRY_AFTER_S,
      persistence: defaults.DEFAULT_CALL_ID_PERSISTENCE_MS,
      udp: defaults.DEFAULT_MAX_UDP_REQUEST_BYTES,
      srvOrder: defaults.SRV_TRANSPORT_ORDER,
    }).toEqual({
      transports: ['udp', 'tcp', 'tls'],
      sip: 5060,
      sips: 5061,
      maxTargets: 32,
      timer: 6000,
      penalty: 60_000,
      retryAfter: 300,
      persistence: 180_000,
      udp: 1300,
      srvOrder: ['tls', 'tcp', 'udp'],
    });
  });
});
