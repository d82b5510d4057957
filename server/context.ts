/**
 * The services of a running server, built once and passed to the app (no service locator).
 */
import pino, { type Logger } from 'pino';
import type { Config } from '../core/config.ts';
import { createEs, type Es } from '../core/adapters/es.ts';
import { createEsSearch, type EsSearch } from '../core/adapters/es-search.ts';
import { createRedis, type RedisClient } from '../core/adapters/redis.ts';
import { redisKeys, type RedisKeys } from '../core/names.ts';
import { KeyService } from './services/keys.ts';
import { CreditService } from './services/credits.ts';
import { TagService } from './services/tags.ts';
import { CrawlGuard } from './services/crawl.ts';
import { RateWindows } from './services/rate.ts';
import { CursorCodec } from './read/cursor.ts';
import { CrmService } from './services/crm.ts';
import { sandboxNamespace } from '../core/names.ts';
import { JobQueues } from './jobs/queue.ts';
import { JobWaiter } from './writing/waiter.ts';
import { WritingStore } from './writing/store.ts';
import { FeedbackStore } from './services/feedback.ts';
import { JwtService } from './services/jwt.ts';
import { observeEs, observeRedis } from './metrics.ts';
import { ReadMemory } from './services/read-memory.ts';
import { UsageStats } from './services/usage.ts';
import { DependencyHealth } from './services/health.ts';
import { WritingSettingsStore } from './writing/settings-store.ts';

export interface Services {
  config: Config;
  log: Logger;
  es: Es;
  /** The lean search path of list calls (adapters/es-search.ts). */
  esSearch: EsSearch;
  redis: RedisClient;
  /** Redis key names (one namespace for live and sandbox: keys, credits and tags are not data). */
  rk: RedisKeys;
  keys: KeyService;
  credits: CreditService;
  tags: TagService;
  crawl: CrawlGuard;
  /** Rate windows per user (services/rate.ts). */
  rate: RateWindows;
  crm: CrmService;
  /** Signed page cursors (read/cursor.ts). */
  cursors: CursorCodec;
  /** Remembered page ends, the count cache, the filter-option cache and the cursor secret (services/read-memory.ts). */
  readMemory: ReadMemory;
  /** Usage statistics: writing jobs and model tokens by day (services/usage.ts). */
  usage: UsageStats;
  /** Whether Elasticsearch and Redis answer (services/health.ts). */
  health: DependencyHealth;
  /** Users' temperature overrides and account details (writing/settings-store.ts). */
  writingSettings: WritingSettingsStore;
  /** Background job queues and this process's workers (jobs/queue.ts). */
  jobs: JobQueues;
  /** Saved identities, plays, CTAs and subjects (writing/store.ts). */
  writing: WritingStore;
  /** Bug reports and review flags. */
  feedback: FeedbackStore;
  /** JWT bearer tokens: verification (and minting, for the CLI). */
  jwt: JwtService;
  /** Long polls of writing jobs: one Redis subscriber per process (writing/waiter.ts). */
  writingWaiter: JobWaiter;
  /** Elasticsearch namespace a key reads: the sandbox for test keys. */
  dataNamespace: (keyType: 'live' | 'test') => string;
  close: () => Promise<void>;
}

/** The service's logger: JSON lines on stdout (or `dest`), secrets redacted by path. */
export function createLogger(level: string, dest?: pino.DestinationStream): Logger {
  const opts = { level, base: { service: 'bintel' }, redact: ['req.headers.authorization', 'secret'] };
  return dest ? pino(opts, dest) : pino(opts);
}

export function createServices(config: Config, opts: { log?: Logger } = {}): Services {
  const log = opts.log ?? createLogger(config.logLevel);
  // Every Elasticsearch request of the API has a deadline (BINTEL_ES_TIMEOUT_MS): past it the call is 503.
  // Every Elasticsearch request and Redis command of the API is timed for /metrics (metrics.ts).
  const es = createEs(config, { requestTimeout: config.esTimeoutMs, observe: observeEs });
  const esSearch = createEsSearch(config.esNodes, { requestTimeout: config.esTimeoutMs, observe: observeEs });
  const redis = createRedis(config, { observe: observeRedis });
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const rk = redisKeys(config.namespace);
  const readMemory = new ReadMemory(redis, rk, es, log);
  const services: Services = {
    config,
    log,
    es,
    esSearch,
    redis,
    rk,
    keys: new KeyService(redis, rk, { maxChildKeys: config.maxChildKeys, maxOrgKeys: config.maxOrgKeys, maxCreationsPerDay: config.maxKeyCreationsPerDay, revokedRetentionS: config.revokedKeyRetentionS }),
    credits: new CreditService(redis, rk),
    tags: new TagService(redis, rk, es, { perUser: config.records.tagsMaxPerUser, perOrg: config.records.tagsMaxPerOrg }),
    crawl: new CrawlGuard(redis, rk, config.crawlThreshold),
    rate: new RateWindows(redis, rk),
    cursors: new CursorCodec(() => readMemory.cursorSecret()),
    readMemory,
    usage: new UsageStats(redis, rk),
    health: new DependencyHealth(es, redis),
    writingSettings: new WritingSettingsStore(redis, rk),
    writing: new WritingStore(redis, rk),
    feedback: new FeedbackStore(redis, rk, config.feedbackMaxOpen, config.records.feedbackMaxOpenPerUser),
    jwt: new JwtService(config.jwt, log),
    crm: new CrmService(redis, rk, es, config.namespace),
    dataNamespace: (t) => (t === 'test' ? sandboxNamespace(config.namespace) : config.namespace),
    jobs: new JobQueues({ config, rk, log }),
    writingWaiter: new JobWaiter({ config, rk, log }),
    close: async () => {
      await services.jobs.close();
      services.writingWaiter.close();
      redis.disconnect();
      await Promise.all([es.close(), esSearch.close()]);
    },
  };
  return services;
}
