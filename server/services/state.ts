/**
 * `bintel state export FILE` / `bintel state import FILE`: every durable Redis record of a
 * namespace as JSON lines, for backup and for moving between Redis deployments (one node or a
 * cluster, another namespace). Durable: API keys (by id, by secret hash, per organization; a
 * secret itself is never stored), credit pools, usage counters, tags, CRM context, saved
 * writing records, job records, feedback, the cursor-signing secret. Left out, since they
 * expire by themselves or are rebuilt: rate-limit windows, crawl state, cache-hit receipts,
 * count caches, remembered page ends, filter-option caches and the job queues' own keys.
 *
 * One line per key: `{"key": <name without the namespace prefix>, "ns": "live"|"sandbox",
 * "type", "ttl_ms" (absent: no expiry), "value"}`; values are strings, so binary-safe text only
 * (everything bintel writes is text).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { scanKeys, type RedisClient } from '../../core/adapters/redis.ts';
import { sandboxNamespace } from '../../core/names.ts';

/** Key name parts of what is not exported (see the module comment). */
const EPHEMERAL = [/:rl:/, /:crawl:/, /:paid:/, /^count:/, /^cursor:/, /^fopt:/, /^\{jobs\}/];

export interface StateLine {
  key: string;
  ns: 'live' | 'sandbox';
  type: 'string' | 'hash' | 'set' | 'zset' | 'list';
  ttl_ms?: number;
  value: string | Record<string, string> | string[] | [string, string][];
}

const prefixes = (ns: string) => ({ live: `${ns}:`, sandbox: `${sandboxNamespace(ns)}:` });

/** Writes every durable key of the namespace to `file`; returns the number of lines. */
export async function exportState(redis: RedisClient, ns: string, file: string): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  let lines = 0;
  for (const [which, prefix] of Object.entries(prefixes(ns)) as ['live' | 'sandbox', string][]) {
    for (const full of (await scanKeys(redis, `${prefix}*`)).sort()) {
      const key = full.slice(prefix.length);
      if (EPHEMERAL.some((re) => re.test(key))) continue;
      const [type, ttl] = await Promise.all([redis.type(full), redis.pttl(full)]);
      let value: StateLine['value'];
      if (type === 'string') value = (await redis.get(full)) ?? '';
      else if (type === 'hash') value = await redis.hgetall(full);
      else if (type === 'set') value = (await redis.smembers(full)).sort();
      else if (type === 'list') value = await redis.lrange(full, 0, -1);
      else if (type === 'zset') {
        const flat = await redis.zrange(full, '0', '-1', 'WITHSCORES');
        const pairs: [string, string][] = [];
        for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
        value = pairs;
      } else continue; // gone meanwhile, or a type bintel does not write
      const line: StateLine = { key, ns: which, type: type as StateLine['type'], ...(ttl > 0 ? { ttl_ms: ttl } : {}), value };
      if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
      lines++;
    }
  }
  out.end();
  await once(out, 'finish');
  return lines;
}

/**
 * Reads a file written by `exportState` into the namespace `ns` (which may differ from the
 * exported one): each key is replaced by the exported value and expiry. Returns the number of
 * keys written. A malformed line stops the import with its line number (lines before it are in).
 */
export async function importState(redis: RedisClient, ns: string, file: string): Promise<number> {
  const target = prefixes(ns);
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  let lineNo = 0;
  for await (const text of rl) {
    lineNo++;
    if (!text.trim()) continue;
    let line: StateLine;
    try {
      line = JSON.parse(text) as StateLine;
      if (typeof line.key !== 'string' || !['live', 'sandbox'].includes(line.ns)) throw new Error('key or ns missing');
    } catch (err) {
      throw new Error(`${file}:${lineNo}: not a state line (${(err as Error).message})`);
    }
    const full = `${target[line.ns]}${line.key}`;
    // One key at a time (a key's commands share its slot, so this works on a cluster too).
    await redis.del(full);
    if (line.type === 'string') await redis.set(full, line.value as string);
    else if (line.type === 'hash') {
      const h = line.value as Record<string, string>;
      if (Object.keys(h).length) await redis.hset(full, h);
    } else if (line.type === 'set') {
      const m = line.value as string[];
      if (m.length) await redis.sadd(full, ...m);
    } else if (line.type === 'list') {
      const m = line.value as string[];
      if (m.length) await redis.rpush(full, ...m);
    } else if (line.type === 'zset') {
      const pairs = line.value as [string, string][];
      if (pairs.length) await redis.zadd(full, ...pairs.flatMap(([member, score]) => [score, member]));
    } else throw new Error(`${file}:${lineNo}: unknown type ${String(line.type)}`);
    if (line.ttl_ms && line.ttl_ms > 0) await redis.pexpire(full, line.ttl_ms);
    n++;
  }
  return n;
}
