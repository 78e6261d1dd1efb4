import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError, shouldTryNext } from '@dnscore/core';
import {
  InsecureAnswerError,
  UnboundOptionError,
  UnboundResolveError,
  UnboundUnavailableError,
} from '../src/errors.js';

describe('error classes', () => {
  it('each has a stable code and says whether the registry may ask the next backend', () => {
    const errors = [
      new UnboundOptionError('trustAnchors[0]', 'bad', 'libunbound: syntax error (-3)'),
      new UnboundResolveError('x', 'libunbound: initialization failure (-7)', -7),
      new UnboundUnavailableError('not installed'),
      new InsecureAnswerError('insecure'),
    ];
    expect(errors.map((e) => [e.name, e.code, e.definite, shouldTryNext(e), e instanceof DnsError])).toEqual([
      ['UnboundOptionError', 'DNS_ERR_UNBOUND_OPTION', true, false, true],
      ['UnboundResolveError', 'DNS_ERR_UNBOUND', false, true, true],
      ['UnboundUnavailableError', 'DNS_ERR_UNBOUND_UNAVAILABLE', false, true, true],
      ['InsecureAnswerError', 'DNS_ERR_INSECURE_ANSWER', true, false, true],
    ]);
    expect(errors[0]).toBeInstanceOf(InvalidArgumentError);
  });

  it('messages name what went wrong', () => {
    expect(
      new UnboundOptionError('hosts', 'the file cannot be read', 'libunbound: error reading file (-9)').message,
    ).toBe('unbound option hosts: the file cannot be read (libunbound: error reading file (-9))');
    expect(new UnboundOptionError('maxInFlight', 'must be positive').message).toBe(
      'unbound option maxInFlight: must be positive',
    );
    expect(new UnboundUnavailableError('libunbound is missing').message).toBe(
      'libunbound is unavailable: libunbound is missing',
    );
  });
});
