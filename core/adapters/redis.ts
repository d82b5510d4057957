/**
 * The Redis adapter: the only module that constructs ioredis clients. Every key is built by
 * core/names.ts and prefixed by the namespace.
 *
 * Failures leave this adapter as the typed errors of core/errors.ts. Every command, whether
 * sent alone, auto-pipelined, in `multi()`/`pipeline()` or as a script from `defineCommand`,
 * passes through `Redis#sendCommand`, so the client below translates there: it wraps the
 * command's `reject`: one closure per command. A Proxy around the client would miss the
 * `exec()` of the Pipeline that `multi()` and `pipeline()` return; bench/redis-errors.ts
 * measured both within noise of the raw client (about 1 µs per request at most).
 */
import { Redis, ReplyError, type Command } from 'ioredis';
import type { Config } from '../config.ts';
import { RejectedError, ServiceUnavailableError, isAdapterError } from '../errors.ts';

/**
 * Reply codes (the first word of a Redis error, by the protocol) that mean "not now": the
 * server is loading, busy with a script, failing over or read-only after a failover.
 */
const NOT_READY = new Set(['LOADING', 'BUSY', 'MASTERDOWN', 'TRYAGAIN', 'CLUSTERDOWN', 'READONLY']);

/**
 * A failed command as a typed error. The server's answer (ReplyError: a wrong command, a
 * script that raised) is RejectedError, unless its code says the server is not ready. Every
 * other error ioredis gives a command is its own, and all of those are about the connection:
 * closed, refused, retries per request spent, offline queue disabled, command timeout.
 */
export function translateRedisError(err: Error): Error {
  if (isAdapterError(err)) return err;
  if (err instanceof ReplyError) {
    const code = err.message.split(' ', 1)[0];
    if (NOT_READY.has(code)) return new ServiceUnavailableError({ service: 'redis', detail: err.message, cause: err });
    // The message is kept whole: ioredis's script runner looks for NOSCRIPT in it to reload the script.
    return new RejectedError({ service: 'redis', type: code, reason: err.message, cause: err });
  }
  return new ServiceUnavailableError({ service: 'redis', detail: err.message, cause: err });
}

/** The stream argument of `sendCommand` (a socket, or a pipeline's buffer). */
type Stream = Parameters<Redis['sendCommand']>[1];

/** An ioredis client whose commands (and `connect`) fail with the typed errors only. */
class TranslatingRedis extends Redis {
  // `node` is an argument ioredis passes (a pipeline's target) that its typings omit.
  override sendCommand(command: Command, stream?: Stream, node?: unknown): unknown {
    const reject = command.reject;
    command.reject = (err: Error) => reject(translateRedisError(err));
    return (super.sendCommand as (c: Command, s?: Stream, n?: unknown) => unknown).call(this, command, stream, node);
  }

  override connect(callback?: () => void): Promise<void> {
    return super.connect(callback).catch((err: Error) => {
      throw translateRedisError(err);
    });
  }
}

export type RedisClient = Redis;

/** Creates a client; `lazyConnect` so callers choose when to fail. */
export function createRedis(config: Pick<Config, 'redisUrl'>, opts: { maxRetriesPerRequest?: number | null; connectTimeout?: number; autoPipelining?: boolean } = {}): RedisClient {
  // Auto-pipelining: the commands one request issues in the same tick (credit debit, count
  // cache, page cursor) leave in one write and come back in one read.
  return new TranslatingRedis(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: opts.maxRetriesPerRequest === undefined ? 2 : opts.maxRetriesPerRequest,
    connectTimeout: opts.connectTimeout ?? 10_000,
    enableOfflineQueue: true,
    enableAutoPipelining: opts.autoPipelining ?? true,
  });
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
