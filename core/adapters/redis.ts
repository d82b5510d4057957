/**
 * The Redis adapter: the only module that constructs ioredis clients.
 * Every key is built by `keys.ts` and prefixed by the namespace.
 */
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';

export type RedisClient = Redis;

/** Creates a client; `lazyConnect` so callers choose when to fail. */
export function createRedis(config: Pick<Config, 'redisUrl'>): RedisClient {
  // Auto-pipelining: the commands one request issues in the same tick (credit debit, count
  // cache, page cursor) leave in one write and come back in one read.
  return new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, enableAutoPipelining: true });
}

/** True when a Redis server answers PING at the URL. */
export async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}
