/**
 * The Redis adapter: the only module that constructs ioredis clients. Every key is built by
 * core/names.ts and prefixed by the namespace.
 *
 * Failures leave this adapter as the typed errors of core/errors.ts. Every command, whether
 * sent alone, auto-pipelined, in `multi()`/`pipeline()` or as a script of the registry below
 * (defineScript), passes through `Redis#sendCommand`, so the client below translates there: it
 * wraps the command's `reject`: one closure per command. A Proxy around the client would miss the
 * `exec()` of the Pipeline that `multi()` and `pipeline()` return; bench/redis-errors.ts
 * measured both within noise of the raw client (about 1 µs per request at most).
 */
import { createHash } from 'node:crypto';
import { Cluster, Redis, ReplyError, type Command } from 'ioredis';
import type { Config } from '../config.ts';
import { RejectedError, ServiceUnavailableError, isAdapterError } from '../errors.ts';

/**
 * Reply codes (the first word of a Redis error, by the protocol) that mean "not now": the
 * server is loading, busy with a script, failing over or read-only after a failover.
 */
const NOT_READY = new Set(['LOADING', 'BUSY', 'MASTERDOWN', 'TRYAGAIN', 'CLUSTERDOWN', 'READONLY']);

/**
 * A failed command as a typed error. The server's answer (ReplyError: a wrong command, a
 * script that raised) is RejectedError, unless its code says the server is not ready or out of
 * memory (OOM: maxmemory reached with `noeviction`, every write refused). Every
 * other error ioredis gives a command is its own, and all of those are about the connection:
 * closed, refused, retries per request spent, offline queue disabled, command timeout.
 */
export function translateRedisError(err: Error): Error {
  if (isAdapterError(err)) return err;
  if (err instanceof ReplyError) {
    const code = err.message.split(' ', 1)[0];
    if (NOT_READY.has(code)) return new ServiceUnavailableError({ service: 'redis', detail: err.message, cause: err });
    // maxmemory reached under `noeviction`: the write is refused, nothing was written; not a bug of the request.
    if (code === 'OOM') return new ServiceUnavailableError({ service: 'redis', detail: err.message, cause: err, full: true });
    // The message is kept whole (the code is its first word: NOSCRIPT makes defineScript reload the script).
    return new RejectedError({ service: 'redis', type: code, reason: err.message, cause: err });
  }
  return new ServiceUnavailableError({ service: 'redis', detail: err.message, cause: err });
}

/** The stream argument of `sendCommand` (a socket, or a pipeline's buffer). */
type Stream = Parameters<Redis['sendCommand']>[1];

/**
 * Told of every command a client sends, once it is answered: the command's name (`get`,
 * `evalsha` ...: a bounded set), its duration in ms and its error (translated) or null.
 */
export type RedisObserver = (command: string, ms: number, err: Error | null) => void;

/** Times `command` for `observe`, once per command (a command ioredis sends again is not timed twice). */
function observed(command: Command, observe: RedisObserver | undefined): void {
  const marked = command as Command & { bintelObserved?: boolean };
  if (!observe || marked.bintelObserved) return;
  marked.bintelObserved = true;
  const started = performance.now();
  const { resolve, reject } = command;
  command.resolve = (value: unknown) => {
    observe(command.name, performance.now() - started, null);
    resolve(value as never);
  };
  // The error passes on as it came: the wrappers inside translate it (and a cluster's follow a redirection).
  // A NOSCRIPT is no failure either: the script registry (defineScript) loads the script and runs it.
  command.reject = (err: Error) => {
    if (isNoScriptReply(err)) observe(command.name, performance.now() - started, null);
    else if (!isRedirection(err)) observe(command.name, performance.now() - started, translateRedisError(err));
    reject(err);
  };
}

/** An ioredis client whose commands (and `connect`) fail with the typed errors only. */
class TranslatingRedis extends Redis {
  /** Metrics: told of every command (createRedis `observe`). */
  observer?: RedisObserver;

  // `node` is an argument ioredis passes (a pipeline's target) that its typings omit.
  override sendCommand(command: Command, stream?: Stream, node?: unknown): unknown {
    const reject = command.reject;
    command.reject = (err: Error) => reject(translateRedisError(err));
    observed(command, this.observer);
    return (super.sendCommand as (c: Command, s?: Stream, n?: unknown) => unknown).call(this, command, stream, node);
  }

  override connect(callback?: () => void): Promise<void> {
    return super.connect(callback).catch((err: Error) => {
      throw translateRedisError(err);
    });
  }
}

/** A NOSCRIPT reply, as Redis sent it: the server does not hold the script an EVALSHA named. */
const isNoScriptReply = (err: Error): boolean => err instanceof ReplyError && err.message.startsWith('NOSCRIPT');

/** A cluster redirection reply (MOVED, ASK), which the cluster client follows itself. */
export const isRedirection = (err: Error): boolean => err instanceof ReplyError && /^(MOVED|ASK) /.test(err.message);

/** A command unanswered for this long fails (503), instead of waiting for a node that is gone or hung. */
const REDIS_COMMAND_TIMEOUT_MS = 5000;

/** What ioredis' Cluster client throws about its connections (its node connections are not ours to wrap). */
const CLUSTER_CONNECTION_ERRORS = /^(Connection is closed\.|Cluster isn't ready|Command timed out|Cluster is ended\.|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Stream isn't writeable)/;

/**
 * An error of the Redis Cluster client that escaped the translation above (a node connection
 * closing under a pipelined command, a redirection that never settled), as the typed error:
 * unavailable. Other errors are returned unchanged.
 */
export function clusterClientError(err: unknown): unknown {
  if (!(err instanceof Error) || isAdapterError(err)) return err;
  const name = err.name;
  if (isRedirection(err) || CLUSTER_CONNECTION_ERRORS.test(err.message) || name === 'ClusterAllFailedError' || name === 'MaxRetriesPerRequestError') {
    return new ServiceUnavailableError({ service: 'redis', detail: err.message, cause: err });
  }
  return err;
}

/** The same translation for ioredis' Cluster client (REDIS_CLUSTER_NODES). */
class TranslatingCluster extends Cluster {
  /** Metrics: told of every command (createRedis `observe`). */
  observer?: RedisObserver;

  override sendCommand(command: Command, stream?: Stream, node?: unknown): unknown {
    // A redirected command (MOVED, ASK, a failover) is sent again through here: translate its
    // errors once, innermost, so the cluster's own redirection handling still sees MOVED replies.
    const marked = command as Command & { bintelTranslated?: boolean };
    if (!marked.bintelTranslated) {
      marked.bintelTranslated = true;
      const reject = command.reject;
      // MOVED and ASK are the cluster's own business (its redirection, and a pipeline's, read the
      // reply as it came): they pass as they are. A redirection that never settles ends as an
      // error of the cluster client, which is about the connection: unavailable.
      command.reject = (err: Error) => {
        if (!isRedirection(err)) return reject(translateRedisError(err));
        // A pipeline (auto-pipelining) delivers a MOVED it cannot retry as it is, without
        // refreshing the slot map; refresh it here, or every later call to the slot would be
        // sent to the wrong node again (seen after a master restarts).
        (this as unknown as { refreshSlotsCache(): void }).refreshSlotsCache();
        return reject(err);
      };
      // Outside the redirection handling above: a MOVED the cluster follows is not an error of the command.
      observed(command, this.observer);
    }
    return (super.sendCommand as (c: Command, s?: Stream, n?: unknown) => unknown).call(this, command, stream, node);
  }

  override connect(): Promise<void> {
    return super.connect().catch((err: Error) => {
      throw translateRedisError(err);
    });
  }
}

/**
 * The client every module uses. Typed as the single-node client: the Cluster client has the same
 * command API, and the code keeps every script and transaction within one hash slot (see
 * core/names.ts), which is what a cluster needs. `isCluster` tells the two apart where it matters.
 */
export type RedisClient = Redis;

/** True when the client is a Redis Cluster client. */
export const isCluster = (r: RedisClient): boolean => (r as unknown) instanceof Cluster;

/** What creating a client needs: the URL, or the cluster's seed nodes. */
export type RedisTarget = { redisUrl: string; redisClusterNodes?: readonly { host: string; port: number }[] | null };

/** Creates a client; `lazyConnect` so callers choose when to fail. */
export function createRedis(config: RedisTarget, opts: { maxRetriesPerRequest?: number | null; connectTimeout?: number; autoPipelining?: boolean; observe?: RedisObserver } = {}): RedisClient {
  const maxRetriesPerRequest = opts.maxRetriesPerRequest === undefined ? 2 : opts.maxRetriesPerRequest;
  const connectTimeout = opts.connectTimeout ?? 10_000;
  // Auto-pipelining: the commands one request issues in the same tick (credit debit, count
  // cache, page cursor) leave in one write and come back in one read (per node in a cluster).
  const enableAutoPipelining = opts.autoPipelining ?? true;
  if (config.redisClusterNodes?.length) {
    // The URL's credentials and TLS (when REDIS_URL names them) apply to every node.
    const url = new URL(config.redisUrl);
    const auth = { ...(url.username ? { username: decodeURIComponent(url.username) } : {}), ...(url.password ? { password: decodeURIComponent(url.password) } : {}), ...(url.protocol === 'rediss:' ? { tls: {} } : {}) };
    // Blocking clients (BullMQ workers: maxRetriesPerRequest null) wait for the cluster; the others
    // fail fast (503) while it is not ready, and a command unanswered for 5 s fails too.
    const blocking = maxRetriesPerRequest === null;
    const cluster = new TranslatingCluster([...config.redisClusterNodes], {
      lazyConnect: true,
      enableOfflineQueue: blocking,
      // Not auto-pipelined: a pipeline that meets MOVED (a slot served elsewhere after a master
      // restarts) among replies of other slots delivers it as an error instead of following it;
      // the cluster client follows every redirection of a command sent alone.
      enableAutoPipelining: false,
      maxRedirections: 16,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 200,
      slotsRefreshTimeout: Math.max(1000, connectTimeout),
      redisOptions: { ...auth, connectTimeout, maxRetriesPerRequest, ...(blocking ? {} : { commandTimeout: REDIS_COMMAND_TIMEOUT_MS }) },
    });
    cluster.observer = opts.observe;
    return cluster as unknown as RedisClient;
  }
  const client = new TranslatingRedis(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest,
    connectTimeout,
    enableOfflineQueue: true,
    enableAutoPipelining,
    // A slow or hung Redis: a command unanswered for 5 s fails (503) instead of holding the
    // request; blocking clients (BullMQ workers) wait as their commands mean to.
    ...(maxRetriesPerRequest === null ? {} : { commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
  });
  client.observer = opts.observe;
  return client;
}

/** Every key matching `pattern` (SCAN, never KEYS; in a cluster, on every master). */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const nodes = isCluster(redis) ? (redis as unknown as Cluster).nodes('master') : [redis];
  const out: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      out.push(...batch);
    } while (cursor !== '0');
  }
  return out;
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

/** What a Lua script receives in ARGV. */
export type ScriptArg = string | number;

/** A Lua script of the registry (defineScript): run it with `run`, by its SHA. */
export interface RedisScript<Result, Args extends readonly ScriptArg[]> {
  /** Unique among the scripts defined in the process (errors name it). */
  readonly name: string;
  /** How many KEYS it takes: a fixed count, or 'variadic' (as many as the call gives). */
  readonly keys: number | 'variadic';
  readonly lua: string;
  /** SHA-1 of `lua`: what EVALSHA names. */
  readonly sha: string;
  /**
   * Runs the script on `redis` with `keys` (KEYS) and `args` (ARGV) and answers its reply. Every
   * key it touches must be in `keys`, all in one hash slot (core/names.ts), so a Redis Cluster
   * routes it to the node that holds them.
   */
  run(redis: RedisClient, keys: readonly string[], args: Args): Promise<Result>;
}

/** Every script defined in this process, by name. */
const registry = new Map<string, RedisScript<unknown, readonly ScriptArg[]>>();

/** A NOSCRIPT reply, translated: the server does not hold the script (first call since it started, a restart, SCRIPT FLUSH). */
const isNoScript = (err: unknown): boolean => err instanceof RejectedError && err.type === 'NOSCRIPT';

/**
 * Defines a Lua script, once per module (a second definition of a name throws). `Result` is what
 * its reply reads as, `Args` its ARGV; both are the script's declaration, so no call casts.
 *
 * A run is one EVALSHA; a server that does not hold the script yet answers NOSCRIPT (which
 * changed nothing) and gets it by EVAL, which also caches it. Both are plain commands: they
 * auto-pipeline with the request's other commands, and in a cluster go to the node of their
 * keys (EVAL reloads it there). EVAL on every call would send the whole text each time (for the
 * job accept script the largest string the API wrote per request); ioredis's `defineCommand`,
 * which this replaces, broke auto-pipelining when many calls with a variable key count met
 * NOSCRIPT at once.
 */
export function defineScript<Result, Args extends readonly ScriptArg[] = readonly ScriptArg[]>(spec: { name: string; keys: number | 'variadic'; lua: string }): RedisScript<Result, Args> {
  const { name, keys: count, lua } = spec;
  if (registry.has(name)) throw new Error(`Redis script ${name} is defined twice`);
  const sha = createHash('sha1').update(lua).digest('hex');
  const script: RedisScript<Result, Args> = {
    name,
    keys: count,
    lua,
    sha,
    async run(redis, keys, args) {
      if (count !== 'variadic' && keys.length !== count) throw new Error(`Redis script ${name} takes ${count} keys, not ${keys.length}`);
      try {
        return (await redis.evalsha(sha, keys.length, ...keys, ...args)) as Result;
      } catch (err) {
        if (!isNoScript(err)) throw err;
        return (await redis.eval(lua, keys.length, ...keys, ...args)) as Result;
      }
    },
  };
  registry.set(name, script as RedisScript<unknown, readonly ScriptArg[]>);
  return script;
}

/** Every script defined so far in this process (the modules that define them imported). */
export const definedScripts = (): readonly RedisScript<unknown, readonly ScriptArg[]>[] => [...registry.values()];
