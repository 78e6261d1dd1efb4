/** toPluginAnswer and toResolveError on results shaped as the binding returns them. */
import { describe, expect, it } from 'vitest';
import { makeQuery } from '@dnscore/core/plugin';
import { toPluginAnswer, toResolveError } from '../src/answer.js';
import { InsecureAnswerError, UnboundResolveError } from '../src/errors.js';
import type { UnboundResultRaw } from '../src/binding.js';

const query = makeQuery('sip1.biloxi.test', 'A');
const PACKET = Uint8Array.from([0, 0, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]);

function raw(fields: Partial<UnboundResultRaw>): UnboundResultRaw {
  return {
    qname: 'sip1.biloxi.test.',
    qtype: 1,
    qclass: 1,
    data: [],
    canonName: null,
    rcode: 0,
    answerPacket: PACKET,
    haveData: false,
    nxDomain: false,
    secure: false,
    bogus: false,
    whyBogus: null,
    wasRateLimited: false,
    ttl: 0,
    ...fields,
  };
}

describe('toPluginAnswer, nominal', () => {
  it('secure: flags, rcode and the packet; the canonical name is left to the core', () => {
    expect(toPluginAnswer(query, raw({ secure: true, canonName: 'sip1.biloxi.test.' }))).toEqual({
      rcode: 0,
      secure: true,
      bogus: false,
      answer: PACKET,
    });
  });

  it('bogus: the answer with libunbound reason', () => {
    expect(toPluginAnswer(query, raw({ bogus: true, whyBogus: 'validation failure <x>: signature expired' }))).toEqual({
      rcode: 0,
      secure: false,
      bogus: true,
      whyBogus: 'validation failure <x>: signature expired',
      ede: 7,
      answer: PACKET,
    });
  });

  it('secure and bogus together (never from libunbound): bogus, not secure', () => {
    expect(toPluginAnswer(query, raw({ secure: true, bogus: true, whyBogus: null }))).toMatchObject({
      secure: false,
      bogus: true,
      whyBogus: 'validation failed (libunbound gave no reason)',
      ede: 6,
    });
  });

  it('no packet (REFUSED, SERVFAIL from libunbound itself): the query name is the canonical name', () => {
    expect(toPluginAnswer(query, raw({ rcode: 5, answerPacket: null }))).toEqual({
      rcode: 5,
      secure: false,
      bogus: false,
      canonical: 'sip1.biloxi.test',
    });
    expect(toPluginAnswer(query, raw({ rcode: 2, answerPacket: new Uint8Array(0) }))).toMatchObject({
      canonical: 'sip1.biloxi.test',
    });
  });
});

describe('toPluginAnswer, off-nominal', () => {
  it('bogus without a reason still says it is bogus', () => {
    expect(toPluginAnswer(query, raw({ bogus: true })).whyBogus).toBe('validation failed (libunbound gave no reason)');
  });

  it('requireSecure: insecure NOERROR and NXDOMAIN throw; secure, bogus and SERVFAIL pass', () => {
    expect(() => toPluginAnswer(query, raw({}), true)).toThrow(InsecureAnswerError);
    expect(() => toPluginAnswer(query, raw({ rcode: 3 }), true)).toThrow(InsecureAnswerError);
    expect(toPluginAnswer(query, raw({ secure: true }), true).secure).toBe(true);
    expect(toPluginAnswer(query, raw({ bogus: true }), true).bogus).toBe(true);
    expect(toPluginAnswer(query, raw({ rcode: 2, answerPacket: null }), true).rcode).toBe(2);
  });
});

describe('toPluginAnswer, additionalSecure (val-clean-additional)', () => {
  it('a secure answer with val-clean-additional on: its additional section was validated too', () => {
    expect(toPluginAnswer(query, raw({ secure: true }), false, true)).toEqual({
      rcode: 0,
      secure: true,
      bogus: false,
      additionalSecure: true,
      answer: PACKET,
    });
    expect(toPluginAnswer(query, raw({ secure: true }), true, true).additionalSecure).toBe(true);
  });

  it('never without val-clean-additional, nor on an answer that is not secure, nor without a packet', () => {
    expect(toPluginAnswer(query, raw({ secure: true }), false, false)).not.toHaveProperty('additionalSecure');
    expect(toPluginAnswer(query, raw({ secure: true }))).not.toHaveProperty('additionalSecure');
    expect(toPluginAnswer(query, raw({}), false, true)).not.toHaveProperty('additionalSecure');
    expect(toPluginAnswer(query, raw({ bogus: true }), false, true)).not.toHaveProperty('additionalSecure');
    expect(toPluginAnswer(query, raw({ secure: true, bogus: true }), false, true)).not.toHaveProperty(
      'additionalSecure',
    );
    expect(toPluginAnswer(query, raw({ secure: true, answerPacket: null }), false, true)).not.toHaveProperty(
      'additionalSecure',
    );
  });
});

describe('toResolveError', () => {
  it('keeps libunbound message and number', () => {
    const cause = Object.assign(new Error('libunbound: out of memory (-5)'), { code: 'ERR_UNBOUND' });
    const error = toResolveError(query, cause);
    expect(error).toBeInstanceOf(UnboundResolveError);
    expect(error).toMatchObject({
      code: 'DNS_ERR_UNBOUND',
      message: 'sip1.biloxi.test IN A: libunbound returned no result: libunbound: out of memory (-5)',
      libunboundMessage: 'libunbound: out of memory (-5)',
      libunboundCode: -5,
      cause,
    });
  });

  it('a message without a number', () => {
    expect(toResolveError(query, new TypeError('"qname" must be a string.'))).toMatchObject({
      libunboundCode: undefined,
    });
  });
});
