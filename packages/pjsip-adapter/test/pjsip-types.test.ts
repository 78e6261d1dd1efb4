/** The numbers of pjproject's headers that a PJSIP consumer compares against. */
import { describe, expect, it } from 'vitest';
import { PjStatus, PjsipTransportFlag, PjsipTransportType, pjStatusName } from '../src/pjsip-types.js';

describe('PJSIP constants', () => {
  it('status codes are those of pj/errno.h, pjlib-util/errno.h and pjsip/sip_errno.h', () => {
    expect(PjStatus).toEqual({
      PJ_SUCCESS: 0,
      PJ_EUNKNOWN: 70001,
      PJ_EINVAL: 70004,
      PJ_ENOMEM: 70007,
      PJ_ETIMEDOUT: 70009,
      PJ_ERESOLVE: 70018,
      PJ_EAFNOTSUP: 70022,
      PJSIP_EUNSUPTRANSPORT: 171060,
      PJLIB_UTIL_EDNSNOANSWERREC: 320047,
      PJLIB_UTIL_EDNS_SERVFAIL: 320052,
    });
  });

  it('flags and types are those of sip_types.h', () => {
    expect(PjsipTransportFlag).toEqual({ RELIABLE: 1, SECURE: 2, DATAGRAM: 4 });
    expect([
      PjsipTransportType.UNSPECIFIED,
      PjsipTransportType.UDP,
      PjsipTransportType.TCP,
      PjsipTransportType.TLS,
      PjsipTransportType.IPV6,
    ]).toEqual([0, 1, 2, 3, 128]);
    expect([PjsipTransportType.UDP6, PjsipTransportType.TCP6, PjsipTransportType.TLS6]).toEqual([129, 130, 131]);
  });

  it('pjStatusName names a code, and nothing else', () => {
    expect(pjStatusName(320047)).toBe('PJLIB_UTIL_EDNSNOANSWERREC');
    expect(pjStatusName(0)).toBe('PJ_SUCCESS');
    expect(pjStatusName(12345)).toBeUndefined();
  });
});
