/** One status per kind of failure; never PJ_SUCCESS for an error. */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NetworkError, TimeoutError } from '@dnscore/core';
import {
  AddressFamilyError,
  BogusAnswerError,
  InsecureTargetsError,
  InvalidSipUriError,
  NoTargetsError,
  SipsWithoutTlsError,
  TargetsExhaustedError,
  UnsupportedTransportError,
} from '@dnscore/sip';
import { InvalidHostInfoError } from '../src/errors.js';
import { statusOfError } from '../src/pjsip-status.js';
import { PjStatus } from '../src/pjsip-types.js';

describe('statusOfError: nominal', () => {
  it('nothing found is PJLIB_UTIL_EDNSNOANSWERREC', () => {
    expect(statusOfError(new NoTargetsError('none'))).toBe(PjStatus.PJLIB_UTIL_EDNSNOANSWERREC);
  });

  it('questions without an answer say why: timeout, or a resolver failure', () => {
    expect(statusOfError(new NoTargetsError('none', [new TimeoutError('slow')]))).toBe(PjStatus.PJ_ETIMEDOUT);
    expect(statusOfError(new NoTargetsError('none', [new NetworkError('refused')]))).toBe(PjStatus.PJ_ERESOLVE);
    expect(statusOfError(new NoTargetsError('none', [], 1))).toBe(PjStatus.PJLIB_UTIL_EDNS_SERVFAIL);
    expect(statusOfError(new NoTargetsError('none', [new TimeoutError('slow')], 1))).toBe(PjStatus.PJ_ETIMEDOUT);
  });

  it('bogus DNSSEC is SERVFAIL; transports and families the client lacks have their own codes', () => {
    expect(statusOfError(new BogusAnswerError('a.example', 'SRV', 'expired'))).toBe(PjStatus.PJLIB_UTIL_EDNS_SERVFAIL);
    expect(statusOfError(new InsecureTargetsError('policy require', ['NAPTR a.example (insecure)']))).toBe(
      PjStatus.PJLIB_UTIL_EDNS_SERVFAIL,
    );
    expect(statusOfError(new SipsWithoutTlsError('no tls'))).toBe(PjStatus.PJSIP_EUNSUPTRANSPORT);
    expect(statusOfError(new UnsupportedTransportError('sctp', 'sctp'))).toBe(PjStatus.PJSIP_EUNSUPTRANSPORT);
    expect(statusOfError(new AddressFamilyError('v6 off'))).toBe(PjStatus.PJ_EAFNOTSUP);
  });

  it('bad input is PJ_EINVAL', () => {
    expect(statusOfError(new InvalidHostInfoError('no host'))).toBe(PjStatus.PJ_EINVAL);
    expect(statusOfError(new InvalidSipUriError('x', 'bad'))).toBe(PjStatus.PJ_EINVAL);
    expect(statusOfError(new InvalidArgumentError('bad'))).toBe(PjStatus.PJ_EINVAL);
  });
});

describe('statusOfError: off-nominal', () => {
  it('anything else is PJ_EUNKNOWN, never success', () => {
    expect(statusOfError(new Error('boom'))).toBe(PjStatus.PJ_EUNKNOWN);
    expect(statusOfError('a string')).toBe(PjStatus.PJ_EUNKNOWN);
    expect(statusOfError(undefined)).toBe(PjStatus.PJ_EUNKNOWN);
    expect(statusOfError(new TargetsExhaustedError('all failed', 2))).toBe(PjStatus.PJ_EUNKNOWN);
  });
});
