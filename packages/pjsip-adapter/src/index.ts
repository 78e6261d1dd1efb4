/**
 * @dnscore/pjsip-adapter: an adapter shaped like PJSIP's external-resolver callback
 * (pjsip_ext_resolver), resolving through @dnscore/sip. The public API only: tests import what
 * they test from its own file.
 */
export {
  createPjsipAdapter,
  type PjsipAdapterOptions,
  type PjsipAdapter,
  type FailedServer,
} from './pjsip-adapter.js';
export {
  PJSIP_MAX_RESOLVED_ADDRESSES,
  PjsipTransportFlag,
  PjsipTransportType,
  PjStatus,
  pjStatusName,
  type PjStatusName,
  type PjsipHostInfo,
  type PjSockaddr,
  type PjsipServerAddressRecord,
  type PjsipServerAddresses,
  type PjsipResolverCallback,
  type PjsipExtResolver,
} from './pjsip-types.js';
export { hostInfoFromUri, transportOfType } from './host-info.js';
export { InvalidHostInfoError } from './errors.js';
