// One Redis for every test file of @baton/queue: REDIS_URL when set (e.g. a CI service), else a
// private redis-server on a free loopback port. Test files read BATON_TEST_REDIS_URL (through
// test/helpers/redis.ts) and keep to their own key prefix, so they can share the server.
import { startRedisServer, type RedisServer } from '../src/testing/index.js';

export const TEST_REDIS_URL_ENV = 'BATON_TEST_REDIS_URL';

export default async function setup(): Promise<() => Promise<void>> {
  const given = process.env.REDIS_URL;
  if (given) {
    process.env[TEST_REDIS_URL_ENV] = given;
    return async () => {};
  }
  const server: RedisServer = await startRedisServer();
  process.env[TEST_REDIS_URL_ENV] = server.url;
  return () => server.stop();
}
