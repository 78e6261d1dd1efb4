import { InvalidArgumentError } from '@dnscore/core';

/** The command line itself is wrong (exit 2). */
export class UsageError extends InvalidArgumentError {
  override name = 'UsageError';
  override readonly code = 'DNSCORE_ERR_USAGE';
}
