/**
 * What a test run leaves behind, and its removal: the Elasticsearch indices of the run's
 * namespace (`<ns>-*`) and its Redis keys (`<ns>:*`), with those of every namespace under it
 * (`<ns>-<more>`: the lanes' `<ns>-n20`, the sandbox namespaces, a suite's private
 * `<ns>-n20-f5500`, the shared data sets). Only what the run created: a snapshot taken before
 * the run is spared, so a reused BINTEL_TEST_NAMESPACE never costs data that was already there.
 */
import { type Config } from '../../core/config.ts';
import { createEs, type Es } from '../../core/adapters/es.ts';
import { createRedis, scanKeys, type RedisClient } from '../../core/adapters/redis.ts';
import { unlinkAll } from '../helpers/unlink.ts';

/** The namespace's indices and keys at one moment. */
export interface Footprint {
  indices: Set<string>;
  keys: Set<string>;
}

/** Index names per delete request: names are joined into the URL. */
const DELETE_BATCH = 50;
/** Keys per UNLINK. */
const UNLINK_BATCH = 500;

/** Indices named `<ns>-*`, plus those behind `<ns>-*` aliases (closed and hidden ones too). */
async function namespaceIndices(es: Es, ns: string): Promise<Set<string>> {
  const pattern = `${ns}-*`;
  const indices = await es.cat.indices({ index: pattern, format: 'json', h: 'index', expand_wildcards: 'all' });
  const aliases = await es.cat.aliases({ name: pattern, format: 'json', h: 'alias,index', expand_wildcards: 'all' });
  const names = [...indices.map((r) => r.index), ...aliases.filter((a) => a.alias?.startsWith(`${ns}-`)).map((a) => a.index)];
  return new Set(names.filter((n): n is string => typeof n === 'string' && n.length > 0));
}

/** Every key of the namespace and of the namespaces under it (SCAN, never KEYS). */
async function namespaceKeys(redis: RedisClient, ns: string): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const pattern of [`${ns}:*`, `${ns}-*`]) for (const k of await scanKeys(redis, pattern)) keys.add(k);
  return keys;
}

/** Runs `fn` with fresh Elasticsearch and Redis clients and closes them. */
async function withClients<T>(config: Config, fn: (es: Es, redis: RedisClient) => Promise<T>): Promise<T> {
  const es = createEs(config, { maxRetries: 1 });
  const redis = createRedis(config);
  try {
    await redis.connect();
    return await fn(es, redis);
  } finally {
    redis.disconnect();
    await es.close();
  }
}

/** The namespace's indices and keys now. */
export function footprint(config: Config): Promise<Footprint> {
  return withClients(config, async (es, redis) => ({
    indices: await namespaceIndices(es, config.namespace),
    keys: await namespaceKeys(redis, config.namespace),
  }));
}

/** Deletes exact index names in batches (wildcard deletes are refused by the cluster). */
async function deleteIndices(es: Es, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += DELETE_BATCH) {
    await es.indices.delete({ index: names.slice(i, i + DELETE_BATCH).join(','), ignore_unavailable: true, expand_wildcards: 'none' });
  }
}

/**
 * Removes what appeared in the namespace since `before`; returns what was removed and what
 * is still there afterwards that the run created (which should be nothing).
 */
export function cleanNamespace(config: Config, before: Footprint): Promise<{ indices: string[]; keys: string[]; left: Footprint }> {
  return withClients(config, async (es, redis) => {
    const indices = [...(await namespaceIndices(es, config.namespace))].filter((n) => !before.indices.has(n)).sort();
    const keys = [...(await namespaceKeys(redis, config.namespace))].filter((k) => !before.keys.has(k));
    await deleteIndices(es, indices);
    await unlinkAll(redis, keys, UNLINK_BATCH);
    const after = { indices: await namespaceIndices(es, config.namespace), keys: await namespaceKeys(redis, config.namespace) };
    const left = { indices: new Set([...after.indices].filter((n) => !before.indices.has(n))), keys: new Set([...after.keys].filter((k) => !before.keys.has(k))) };
    return { indices, keys, left };
  });
}
