/** Every error has a stable code and extends the core's classes, so instanceof and code checks hold. */
import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError, StateError } from '@dnscore/core';
import {
  BridgeClosedError,
  InvalidSipMessageError,
  LocalBindError,
  SipBridgeError,
  SipTransportError,
  UnknownTransactionError,
} from '../src/errors.js';

describe('errors', () => {
  it('have the codes of the README table and the right parents', () => {
    const cases: [Error & { code: string }, string, abstract new (...args: never[]) => Error][] = [
      [new SipBridgeError('x'), 'BRIDGE_ERR', DnsError],
      [new InvalidSipMessageError('x'), 'BRIDGE_ERR_INVALID_MESSAGE', InvalidArgumentError],
      [new UnknownTransactionError('z9hG4bK1'), 'BRIDGE_ERR_NO_TRANSACTION', SipBridgeError],
      [new SipTransportError('x', 'tcp 192.0.2.1 5060'), 'BRIDGE_ERR_TRANSPORT', SipBridgeError],
      [new LocalBindError('x'), 'BRIDGE_ERR_LOCAL_BIND', SipBridgeError],
      [new BridgeClosedError('x'), 'BRIDGE_ERR_CLOSED', StateError],
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
