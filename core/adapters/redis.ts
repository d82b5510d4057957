/**
 * The Redis adapter: the only module that constructs ioredis clients, and the boundary where the
 * driver's errors become typed ones (core/errors.ts): a connection that is closed, refused or out
 * of retries is ServiceUnavailableError('redis'); an error reply (a script bug, a wrong type) is
 * RejectedError. Every key is built by core/names.ts and prefixed by the namespace.
 */
import { Redis, ReplyError } from 'ioredis';
import type { Config } from '../config.ts';
import { RejectedError, ServiceUnavailableError } from '../errors.ts';

export type RedisClient = Redis;

/** A driver error as a typed one. */
export function translateRedisError(err: unknown): unknown {
  if (err instanceof RejectedError || err instanceof ServiceUnavailableError) return err;
  if (err instanceof ReplyError) return new RejectedError('redis', 500, (err as Error).message, { cause: err });
  // Everything else ioredis rejects with is about the connection: closed, refused, out of retries, offline queue off.
  if (err instanceof Error) return new ServiceUnavailableError('redis', { cause: err });
  return err;
}

const isThenable = (v: unknown): v is Promise<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';

/**
 * Wraps a command result: a promise rejects with a typed error; a pipeline or MULTI gets an
 * `exec` that does. Anything else is returned as it is.
 */
function translated(value: unknown): unknown {
  if (isThenable(value)) return value.catch((err: unknown) => Promise.reject(translateRedisError(err)));
  const pipeline = value as { exec?: (...a: unknown[]) => unknown } | null;
  if (pipeline && typeof pipeline === 'object' && typeof pipeline.exec === 'function' && !(value instanceof Redis)) {
    const exec = pipeline.exec.bind(pipeline);
    pipeline.exec = (...a: unknown[]) => translated(exec(...a));
  }
  return value;
}

/** The client with every method's failures translated (commands, Lua commands from defineCommand, pipelines). */
function boundary(client: Redis): Redis {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      // Methods are wrapped once per name and called on the client itself (ioredis keeps state on `this`).
      let fn = wrapped.get(prop) as ((...a: unknown[]) => unknown) | undefined;
      if (!fn || (fn as { raw?: unknown }).raw !== v) {
        const raw = v as (...a: unknown[]) => unknown;
        fn = Object.assign((...a: unknown[]) => translated(raw.apply(target, a)), { raw });
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/** Creates a client; `lazyConnect` so callers choose when to fail. */
export function createRedis(config: Pick<Config, 'redisUrl'>): RedisClient {
  // Auto-pipelining: the commands one request issues in the same tick (credit debit, count
  // cache, page cursor) leave in one write and come back in one read.
  return boundary(new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, enableAutoPipelining: true }));
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
