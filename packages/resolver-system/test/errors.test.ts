import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError } from '@dnscore/core/plugin';
import { ConfigFileError, InvalidServerAddressError } from '../src/errors.js';

describe('errors, nominal', () => {
  it('InvalidServerAddressError is a definite InvalidArgumentError with its own code', () => {
    const error = new InvalidServerAddressError('x', 'why');
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toBeInstanceOf(DnsError);
    expect(error.code).toBe('DNS_ERR_INVALID_SERVER_ADDRESS');
    expect(error.name).toBe('InvalidServerAddressError');
    expect(error.definite).toBe(true);
    expect(error.message).toBe('invalid nameserver address "x": why');
  });

  it('ConfigFileError names the file and keeps the cause', () => {
    const cause = new Error('EACCES');
    const error = new ConfigFileError('/etc/resolv.conf', 'permission denied', { cause });
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error.code).toBe('DNS_ERR_CONFIG_FILE');
    expect(error.file).toBe('/etc/resolv.conf');
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('cannot read /etc/resolv.conf: permission denied');
  });
});

describe('errors, off-nominal', () => {
  it('codes differ from the core codes they specialize', () => {
    expect(new InvalidServerAddressError('', '').code).not.toBe(new InvalidArgumentError('').code);
    expect(new ConfigFileError('', '').code).not.toBe(new InvalidArgumentError('').code);
  });
});
