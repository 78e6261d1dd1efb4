/**
 * Errors shaped like node:dns's: a plain Error whose message is "SYSCALL CODE HOSTNAME" and whose
 * own properties are errno, code, syscall and hostname, in that order, so `err.code === 'ENOTFOUND'`
 * code and logs read the same. What dnscore adds (the DnsResult, the core's error as `cause`) is
 * kept in non-enumerable properties, so inspecting or comparing the error shows node's shape.
 */
import { getSystemErrorMap } from 'node:util';
import type { DnsResult } from '@dnscore/core';

export class NodeDnsError extends Error {
  /** libuv's number for getaddrinfo codes (ENOTFOUND is -3008); undefined for Resolver codes, as in Node. */
  declare errno: number | undefined;
  /** node:dns's code: ENOTFOUND, ENODATA, ETIMEOUT, ESERVFAIL, EAI_AGAIN, ... */
  declare code: string;
  /** getaddrinfo for lookup, queryA, queryAaaa, ... for the Resolver, getHostByAddr for reverse. */
  declare syscall: string;
  declare hostname?: string;
  /** The dnscore result behind a negative answer (NXDOMAIN, NODATA, SERVFAIL, bogus), when there is one. */
  declare readonly result?: DnsResult;

  constructor(
    code: string,
    syscall: string,
    hostname: string | undefined,
    extra: { errno?: number; result?: DnsResult; cause?: unknown; detail?: string } = {},
  ) {
    super(`${syscall} ${code}${hostname ? ` ${hostname}` : ''}${extra.detail ? `: ${extra.detail}` : ''}`);
    this.errno = extra.errno;
    this.code = code;
    this.syscall = syscall;
    if (hostname) this.hostname = hostname;
    if (extra.result) Object.defineProperty(this, 'result', { value: extra.result, enumerable: false });
    if (extra.cause !== undefined) {
      Object.defineProperty(this, 'cause', { value: extra.cause, enumerable: false, writable: true });
    }
  }

  static {
    // Printed as "Error: getaddrinfo ENOTFOUND x", like node:dns's errors.
    NodeDnsError.prototype.name = 'Error';
  }
}

/** libuv's errno of a getaddrinfo code ("EAI_AGAIN" -> -3001); ENOTFOUND is EAI_NONAME's, as Node reports it. */
export function uvErrno(code: string): number | undefined {
  const name = code === 'ENOTFOUND' ? 'EAI_NONAME' : code;
  errnoByName ??= new Map([...getSystemErrorMap()].map(([errno, [n]]) => [n, errno]));
  return errnoByName.get(name);
}
let errnoByName: Map<string, number> | undefined;

/** Node's TypeError for a bad argument (ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE). */
export class NodeArgumentError extends TypeError {
  readonly code: 'ERR_INVALID_ARG_TYPE' | 'ERR_INVALID_ARG_VALUE' | 'ERR_INVALID_IP_ADDRESS';
  constructor(code: NodeArgumentError['code'], message: string) {
    super(message);
    this.code = code;
  }

  static {
    NodeArgumentError.prototype.name = 'TypeError';
  }
}

/** "Received type number (5)" / "Received 'x'", as Node words it. */
export function received(value: unknown): string {
  if (value === null || value === undefined) return `Received ${value}`;
  if (typeof value === 'function') return `Received function ${value.name || '<anonymous>'}`;
  if (typeof value === 'object') return `Received an instance of ${value.constructor?.name ?? 'Object'}`;
  const shown = typeof value === 'string' ? `'${value.slice(0, 25)}'` : String(value);
  return `Received type ${typeof value} (${shown})`;
}

/** Node's RangeError for a number out of range (ERR_OUT_OF_RANGE). */
export class NodeRangeError extends RangeError {
  readonly code = 'ERR_OUT_OF_RANGE';

  static {
    NodeRangeError.prototype.name = 'RangeError';
  }
}
