/**
 * The 1300-byte rule (RFC 3261 section 18.1.1): a request larger than 1300 bytes, the path MTU
 * being unknown, MUST go over a congestion-controlled transport. A UDP target is then reached
 * over TCP at the same address and port, also when SRV lists only UDP (PJSIP does the same).
 */
import { InvalidArgumentError } from '@dnscore/core';
import { DEFAULT_MAX_UDP_REQUEST_BYTES } from './defaults.js';
import { RequestTooLargeError } from './errors.js';
import type { SipTarget } from './resolution.js';
import type { SipTransport } from './transport.js';

export interface SizeRuleOptions {
  /** Largest request sent over UDP, bytes (default 1300). */
  readonly maxUdpBytes?: number;
  /** Transports the client supports; TCP must be among them to switch (default: all). */
  readonly transports?: ReadonlySet<SipTransport>;
}

export interface SizedTarget<T extends SipTarget = SipTarget> {
  readonly target: T;
  /** True when the transport was changed from UDP to TCP (the top Via must say TCP too). */
  readonly switched: boolean;
}

/**
 * The target to use for a request of `size` bytes. Throws RequestTooLargeError when UDP is too
 * small and TCP is off.
 */
export function applySizeRule<T extends SipTarget>(
  target: T,
  size: number,
  options: SizeRuleOptions = {},
): SizedTarget<T> {
  const max = options.maxUdpBytes ?? DEFAULT_MAX_UDP_REQUEST_BYTES;
  if (!Number.isInteger(size) || size < 0)
    throw new InvalidArgumentError(`a request size must be a non-negative integer, not ${String(size)}`);
  if (target.transport !== 'udp' || size <= max) return { target, switched: false };
  if (options.transports && !options.transports.has('tcp')) {
    throw new RequestTooLargeError(
      `a ${size}-byte request is over the ${max}-byte UDP limit and the client has no TCP (RFC 3261 section 18.1.1 ` +
        `requires a congestion-controlled transport)`,
      size,
      'udp',
    );
  }
  return { target: { ...target, transport: 'tcp' }, switched: true };
}
