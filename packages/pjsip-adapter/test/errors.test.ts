/** The error has a stable code and extends the core's classes, so instanceof and code checks hold. */
import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError } from '@dnscore/core';
import { InvalidHostInfoError } from '../src/errors.js';

describe('errors', () => {
  it('have the codes of the README table and the right parents', () => {
    const error = new InvalidHostInfoError('x');
    expect([error.code, error.name]).toEqual(['PJSIP_ERR_INVALID_HOST_INFO', 'InvalidHostInfoError']);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toBeInstanceOf(DnsError);
  });
});
