/**
 * The error of @dnscore/pjsip-adapter. It extends the core's InvalidArgumentError and has a stable
 * `code`: match on the code, not on the message.
 */
import { InvalidArgumentError } from '@dnscore/core';

/** A pjsip_host_info that PJSIP could not have produced: no host, a bad type, flag or port. */
export class InvalidHostInfoError extends InvalidArgumentError {
  override name = 'InvalidHostInfoError';
  override readonly code = 'PJSIP_ERR_INVALID_HOST_INFO';
}
