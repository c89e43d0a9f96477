// @baton/queue/testing: helpers for testing against a real Redis.
export { startRedisServer, type RedisServer, type StartRedisServerOptions } from './redis-server.js';
