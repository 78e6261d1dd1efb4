/**
 * Errors of the system resolver. Failures to get an answer use the core's own classes, so the
 * registry and the CLI read them like any backend's: TimeoutError (DNS_ERR_TIMEOUT) when no
 * nameserver answered in time, NetworkError (DNS_ERR_NETWORK) for socket failures,
 * MalformedAnswerError (DNS_ERR_MALFORMED_ANSWER) for a broken answer over TCP, StateError
 * (DNS_ERR_STATE) after close(). Bad configuration gets the classes below.
 */
import { InvalidArgumentError } from '@dnscore/core/plugin';

/** A nameserver address that is not IP[:PORT], [IPv6]:PORT or IPv6. */
export class InvalidServerAddressError extends InvalidArgumentError {
  override name = 'InvalidServerAddressError';
  override readonly code: string = 'DNS_ERR_INVALID_SERVER_ADDRESS';
  constructor(
    /** The text that was refused. */
    readonly input: string,
    reason: string,
  ) {
    super(`invalid nameserver address "${input}": ${reason}`);
  }
}

/** resolv.conf or the hosts file exists but cannot be read. */
export class ConfigFileError extends InvalidArgumentError {
  override name = 'ConfigFileError';
  override readonly code: string = 'DNS_ERR_CONFIG_FILE';
  constructor(
    readonly file: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot read ${file}: ${reason}`, options);
  }
}
