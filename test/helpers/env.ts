/**
 * Shared helpers for test files: the run's configuration (the runner sets BINTEL_NAMESPACE to
 * a fresh namespace it removes afterwards) and lazily created clients, closed by `closeAll()`
 * in a suite's `after` hook so the process can exit.
 */
import { loadConfig, type Config } from '../../core/config.ts';
import { createEs, type Es } from '../../core/adapters/es.ts';
import { createRedis, type RedisClient } from '../../core/adapters/redis.ts';

let config: Config | null = null;
let es: Es | null = null;
let redis: RedisClient | null = null;

/** The configuration from the environment, logging silenced unless LOG_LEVEL says otherwise. */
export function testConfig(): Config {
  config ??= loadConfig({ LOG_LEVEL: 'silent', ...process.env });
  return config;
}

/** `<namespace>-<suffix>`: an index name the runner's cleanup removes. */
export function testIndex(suffix: string): string {
  return `${testConfig().namespace}-${suffix}`;
}

/** The Elasticsearch client of this process, created on first use. */
export function testEs(): Es {
  es ??= createEs(testConfig());
  return es;
}

/** The Redis client of this process, created on first use (it connects on its first command). */
export function testRedis(): RedisClient {
  redis ??= createRedis(testConfig());
  return redis;
}

/** Closes the clients created so far; safe to call more than once. */
export async function closeAll(): Promise<void> {
  const [e, r] = [es, redis];
  es = null;
  redis = null;
  if (r) await r.quit().catch(() => r.disconnect());
  if (e) await e.close();
}

/**
 * Waits, when less than `marginMs` is left of the current rate-limit window (fixed windows of a
 * minute on the epoch, server/middleware/auth.ts), for the next one to begin: a test that counts
 * a few calls against a limit must not straddle two windows (the count would start again).
 */
export async function awaitFreshRateWindow(marginMs = 5_000, windowMs = 60_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

/**
 * Calls `probe` until it returns a truthy value, and returns that value; every `everyMs`
 * (default 25 ms) for at most `timeoutMs` (default 30 s), then throws naming `what`. The one way
 * tests wait for something another process does (a job's status, a server's answer, a proxy's
 * count): never a fixed sleep.
 */
export async function pollUntil<T>(probe: () => T | Promise<T>, opts: { what: string; timeoutMs?: number; everyMs?: number }): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const { what, timeoutMs = 30_000, everyMs = 25 } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`waited ${(timeoutMs / 1000).toFixed(1)} s for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
