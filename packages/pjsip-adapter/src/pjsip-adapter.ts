/**
 * An adapter shaped like PJSIP's external resolver (pjsip_ext_resolver), over @dnscore/sip:
 * NAPTR, SRV priority and weight, the penalty box and whatever cache the DnsApi has all apply.
 * The callback runs
 * exactly once, never synchronously (Asterisk's synchronous IP-literal callback is in the
 * deadlock of pjproject #2641) and never while a query of the call is still out; on success it
 * carries at least one entry, with priority and weight filled.
 */
import { InvalidArgumentError, checkNonNegativeNumber, checkPositiveInteger, type DnsApi } from '@dnscore/core';
import {
  AddressFamilyError,
  SipLocator,
  UnsupportedTransportError,
  isSipTransport,
  normalizeAddress,
  type SipLocatorOptions,
  type SipTarget,
  type SipTransport,
} from '@dnscore/sip';
import { checkHostInfo, locatorTarget, transportOfType, typeOfTarget } from './host-info.js';
import { statusOfError } from './pjsip-status.js';
import {
  PJSIP_MAX_RESOLVED_ADDRESSES,
  PjStatus,
  type PjsipExtResolver,
  type PjsipHostInfo,
  type PjsipResolverCallback,
  type PjsipServerAddressRecord,
  type PjsipServerAddresses,
} from './pjsip-types.js';

export interface PjsipAdapterOptions extends SipLocatorOptions {
  /** Most entries per callback (default 32, PJSIP_MAX_RESOLVED_ADDRESSES with IPv6). */
  readonly maxAddresses?: number;
}

/** A server PJSIP reports as failed: an address and port, and the PJSIP type when known. */
export interface FailedServer {
  readonly address: string;
  readonly port: number;
  /** PjsipTransportType; without it every transport of the client is marked (a pj_sockaddr has none). */
  readonly type?: number;
}

export interface PjsipAdapter extends PjsipExtResolver {
  /** The locator behind it: its penalty box is what setServerFailed() feeds. */
  readonly locator: SipLocator;
  /** pjsip_resolver_set_server_failed(): the server comes last in later callbacks for `durationMs`. */
  setServerFailed(server: FailedServer, durationMs: number): void;
  /** pjsip_resolver_is_server_failed(). */
  isServerFailed(server: FailedServer): boolean;
  /** pjsip_resolver_clear_failed_servers(). */
  clearFailedServers(): void;
}

/** sizeof(pj_sockaddr_in) and sizeof(pj_sockaddr_in6). */
const ADDR_LEN = { 4: 16, 6: 28 } as const;

export function createPjsipAdapter(dns: DnsApi, options: PjsipAdapterOptions = {}): PjsipAdapter {
  const { maxAddresses = PJSIP_MAX_RESOLVED_ADDRESSES, ...locatorOptions } = options;
  checkPositiveInteger(maxAddresses, 'maxAddresses');
  if (!dns || typeof dns.resolve !== 'function')
    throw new InvalidArgumentError('createPjsipAdapter needs a DnsApi (a DnsCore)');
  // The locator returns only once every question of the resolution has settled (even when a
  // bogus answer ends it early), which is what PJSIP needs before its pool is freed.
  const locator = new SipLocator(dns, locatorOptions);
  const { penaltyBox } = locator;
  // A walk over the one transport a PJSIP transport selector fixed, or over IPv6 alone for an
  // IPv6 type: a locator of that transport and family, made when first needed, sharing the
  // penalty box's store (one setServerFailed for all).
  const narrowed = new Map<string, SipLocator>();
  const locatorOf = (only: SipTransport | undefined, ipv6Only: boolean): SipLocator => {
    const { client } = locator;
    if (ipv6Only && !client.ipv6)
      throw new AddressFamilyError('the host info has an IPv6 type but IPv6 is off in this adapter');
    if (only !== undefined && !client.transports.has(only))
      throw new UnsupportedTransportError(
        `the transport selector's ${only.toUpperCase()} is not among this adapter's transports`,
        only,
      );
    const sameTransports = only === undefined || (client.transports.size === 1 && client.transports.has(only));
    const sameFamilies = !ipv6Only || !client.ipv4;
    if (sameTransports && sameFamilies) return locator;
    const key = `${sameTransports ? '*' : only} ${sameFamilies ? '*' : '6'}`;
    let one = narrowed.get(key);
    if (one === undefined) {
      one = new SipLocator(dns, {
        ...locatorOptions,
        ...(sameTransports ? {} : { transports: [only] }),
        ...(sameFamilies ? {} : { ipv4: false, ipv6: true }),
        penaltyStore: penaltyBox.store,
      });
      narrowed.set(key, one);
    }
    return one;
  };

  const destinations = (server: FailedServer): { transport: SipTransport; address: string; port: number }[] => {
    if (!server || typeof server !== 'object') throw new InvalidArgumentError('a failed server needs address and port');
    const address = normalizeAddress(server.address);
    if (!address) throw new InvalidArgumentError(`"${String(server.address)}" is not an IP address`);
    const typed = server.type === undefined ? undefined : transportOfType(server.type);
    if (server.type !== undefined && !typed)
      throw new InvalidArgumentError(`type ${String(server.type)} is not UDP, TCP or TLS`);
    const transports = typed ? [typed] : [...locator.client.transports].filter(isSipTransport);
    return transports.map((transport) => ({ transport, address: address.address, port: server.port }));
  };

  /** Resolves one host info; never throws: every failure is a status. */
  const lookup = async (target: PjsipHostInfo): Promise<{ status: number; addresses: PjsipServerAddresses | null }> => {
    try {
      const { uri, only, ipv6Only } = locatorTarget(checkHostInfo(target));
      const resolution = await locatorOf(only, ipv6Only === true).resolve(uri);
      if (resolution.error) return { status: statusOfError(resolution.error), addresses: null };
      // PJSIP's failed servers come last; the locator's order is kept otherwise.
      const open = resolution.targets.filter((t) => !penaltyBox.isPenalized(t));
      const boxed = resolution.targets.filter((t) => penaltyBox.isPenalized(t));
      const entry = [...open, ...boxed].slice(0, maxAddresses).map(record);
      return {
        status: PjStatus.PJ_SUCCESS,
        addresses: Object.freeze({ count: entry.length, entry: Object.freeze(entry) }),
      };
    } catch (error) {
      return { status: statusOfError(error), addresses: null };
    }
  };

  return {
    locator,
    resolve<T>(
      _resolver: unknown,
      _pool: unknown,
      target: PjsipHostInfo,
      token: T,
      cb: PjsipResolverCallback<T>,
    ): void {
      if (typeof cb !== 'function') throw new InvalidArgumentError('pjsip_ext_resolver.resolve needs a callback');
      void lookup(target).then(({ status, addresses }) => {
        // Outside the promise chain: an exception in the consumer's callback is its own, and
        // can never lead to a second call.
        setImmediate(() => cb(status, token, addresses));
      });
    },
    setServerFailed(server: FailedServer, durationMs: number): void {
      checkNonNegativeNumber(durationMs, 'a failure duration', 'ms');
      for (const destination of destinations(server))
        penaltyBox.markFailed(destination, { durationMs, reason: 'manual', detail: 'set failed by the SIP stack' });
    },
    isServerFailed(server: FailedServer): boolean {
      return destinations(server).some((d) => penaltyBox.isPenalized(d));
    },
    clearFailedServers(): void {
      penaltyBox.clearAll();
    },
  };
}

function record(target: SipTarget): PjsipServerAddressRecord {
  return Object.freeze({
    name: target.host,
    type: typeOfTarget(target),
    priority: target.priority,
    weight: target.weight,
    addr: Object.freeze({ family: target.family, address: target.address, port: target.port }),
    addr_len: ADDR_LEN[target.family],
  });
}
