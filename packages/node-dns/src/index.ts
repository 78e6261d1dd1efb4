/**
 * @dnscore/node-dns: node:dns's lookup and Resolver over dnscore, so that net, tls, http, https,
 * undici and code written for node:dns ask dnscore with a one-line change.
 */
export {
  createLookup,
  type CreateLookupOptions,
  type NodeDnsLookup,
  type LookupCallback,
  type InterceptorAddress,
} from './lookup.js';
export type { LookupOptions, ResultOrder } from './lookup-options.js';
export type { LookupAddress, FoundAddress } from './addresses.js';
export {
  NodeDnsPromiseResolver,
  reverseName,
  type NodeDnsResolverOptions,
  type NodeRrtype,
  type ResolveRecordsMap,
  type DetailedAnswer,
} from './promise-resolver.js';
export { NodeDnsResolver, type ResolveCallback } from './callback-resolver.js';
export type {
  AnyRecord,
  CaaRecord,
  MxRecord,
  NaptrRecord,
  RecordWithTtl,
  SoaRecord,
  SrvRecord,
} from './record-shapes.js';
export type { ServerAddress } from './servers.js';
export { install, uninstall, type InstallOptions, type UndiciModule } from './install.js';
export { NodeDnsError, NodeArgumentError, NodeRangeError } from './errors.js';
export * from './defaults.js';
