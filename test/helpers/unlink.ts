/**
 * Removing test keys in bulk (the runner's namespace cleanup, the state tests' copies): serving
 * code never deletes keys by pattern.
 */
import { isCluster, type RedisClient } from '../../core/adapters/redis.ts';

/** Unlinks keys: in batches on one node; one by one (pipelined) in a cluster, where a command may not span slots. */
export async function unlinkAll(redis: RedisClient, keys: readonly string[], batch = 500): Promise<void> {
  for (let i = 0; i < keys.length; i += batch) {
    const part = keys.slice(i, i + batch);
    if (isCluster(redis)) await Promise.all(part.map((k) => redis.unlink(k)));
    else if (part.length) await redis.unlink(...part);
  }
}
