/** Loads the npm `sip` package, an optional peer dependency, only when a bridge is wanted. */
import { InvalidArgumentError } from '@dnscore/core';
import type { SipStack } from './sip-stack.js';

export async function loadSipStack(): Promise<SipStack> {
  try {
    return (await import('sip')).default;
  } catch (error) {
    throw new InvalidArgumentError(
      `the npm package "sip" is needed for the bridge and could not be loaded: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
