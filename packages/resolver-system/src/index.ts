/**
 * @dnscore/resolver-system: a hardened, asynchronous stub resolver to the system's
 * nameservers (resolv.conf or explicit), as a dnscore resolver plugin tried last.
 */
export { SystemResolver, type NameAnswer } from './system-resolver.js';
export { parsedAnswer } from './parsed-answers.js';
export type { SystemResolverConfig, SystemResolverOptions } from './options.js';
export type { SystemResolverSettings } from './settings.js';
export type { SystemResolverStats } from './stats.js';
export { parseServerAddress, type ServerAddress } from './server-address.js';
export { InvalidServerAddressError, ConfigFileError } from './errors.js';
