/**
 * @dnscore/penalty-redis: the SIP penalty box shared by a fleet through Redis. Plug it into a
 * locator with `penaltyStore`; reads stay local and synchronous.
 */
export {
  RedisPenaltyStore,
  type RedisPenaltyStoreOptions,
  type RedisPenaltyStoreStats,
} from './redis-penalty-store.js';
export { DEFAULT_MAX_REMOTE_MS, DEFAULT_PREFIX } from './defaults.js';
