// The Redis thread store of @baton/queue. Re-exported by the package index; keep exports explicit.
export { createRedisThreadStore } from './redis-store.js';
export { REDIS_STORE_DEFAULTS, type RedisThreadStoreOptions } from './options.js';
