/** Every error has a stable code and extends the core's classes, so instanceof and code checks hold. */
import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError, StateError } from '@dnscore/core';
import {
  BridgeClosedError,
  ExtResolverError,
  InvalidHostInfoError,
  InvalidSipMessageError,
  LocalBindError,
  SipTransportError,
  UnknownTransactionError,
} from '../src/index.js';

describe('errors', () => {
  it('have the codes of the README table and the right parents', () => {
    const cases: [Error & { code: string }, string, abstract new (...args: never[]) => Error][] = [
      [new ExtResolverError('x'), 'EXT_ERR', DnsError],
      [new InvalidHostInfoError('x'), 'EXT_ERR_INVALID_HOST_INFO', InvalidArgumentError],
      [new InvalidSipMessageError('x'), 'EXT_ERR_INVALID_MESSAGE', InvalidArgumentError],
      [new UnknownTransactionError('z9hG4bK1'), 'EXT_ERR_NO_TRANSACTION', ExtResolverError],
      [new SipTransportError('x', 'tcp 192.0.2.1 5060'), 'EXT_ERR_TRANSPORT', ExtResolverError],
      [new LocalBindError('x'), 'EXT_ERR_LOCAL_BIND', ExtResolverError],
      [new BridgeClosedError('x'), 'EXT_ERR_CLOSED', StateError],
    ];
    for (const [error, code, parent] of cases) {
      expect(error.code).toBe(code);
      expect(error).toBeInstanceOf(parent);
      expect(error).toBeInstanceOf(DnsError);
    }
  });

  it('carry what a caller needs', () => {
    const transport = new SipTransportError('refused', 'tcp 192.0.2.1 5060', { cause: new Error('ECONNREFUSED') });
    expect([transport.destination, (transport.cause as Error).message, transport.name]).toEqual([
      'tcp 192.0.2.1 5060',
      'ECONNREFUSED',
      'SipTransportError',
    ]);
    const unknown = new UnknownTransactionError('z9hG4bKabc');
    expect([unknown.branch, unknown.message]).toEqual(['z9hG4bKabc', expect.stringContaining('z9hG4bKabc')]);
    expect(new BridgeClosedError('x').definite).toBe(true);
  });
});
