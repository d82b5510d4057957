import { readFileSync } from 'node:fs';
/**
 * Configuration, read once from the environment, validated and frozen.
 * Nothing else in the code base reads process.env: it receives a Config.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Caps on the records users store (each a count of live records unless it says bytes). */
export interface RecordCaps {
  /** Tag records of one user (one side), and of one organization (all its users). */
  tagsMaxPerUser: number;
  tagsMaxPerOrg: number;
  /** Saved plays, CTAs and subjects, each kind apart: of one user, and of one organization. */
  writingMaxPerUser: number;
  writingMaxPerOrg: number;
  /** Marketing identities: created by one user, and of one organization. */
  identitiesMaxPerUser: number;
  identitiesMaxPerOrg: number;
  /** Largest stored identity, in bytes of JSON (a create or change beyond: 413). */
  identityMaxBytes: number;
  /** Open bug reports, and apart open review flags, of one user (the organization's cap is feedbackMaxOpen). */
  feedbackMaxOpenPerUser: number;
}

export interface Config {
  /** Elasticsearch base URL. */
  /** The first (or only) Elasticsearch node URL: the local provisioning and the tools use it. */
  readonly esUrl: string;
  /** Every node URL of ES_URL (comma-separated): the API and the CLI spread requests over them and fail over. */
  readonly esNodes: readonly string[];
  /**
   * JWT bearer tokens (server/services/jwt.ts): the verification key (an HS256 secret, an
   * RS256/ES256 public key in PEM, or a JWKS file or URL), the expected issuer and audience, the
   * signing key of `bintel jwt mint` (PEM, or the HS256 secret), and the longest lifetime a token
   * may have. With no verification key, tokens are refused (401) and API keys work as ever.
   */
  readonly jwt: {
    readonly secret: string | null;
    readonly publicKey: string | null;
    readonly jwks: string | null;
    readonly privateKey: string | null;
    readonly issuer: string | null;
    readonly audience: string | null;
    readonly maxTtlS: number;
  };
  /** How long a stopping server (SIGTERM) lets in-flight requests finish, in ms. */
  readonly shutdownMs: number;
  /** Primary shards and replicas of a new index (BINTEL_SHARDS, BINTEL_REPLICAS; `bintel ingest --shards/--replicas` override). */
  readonly shards: number;
  readonly replicas: number;
  /**
   * Segments a loaded index is force-merged down to before its alias moves (BINTEL_MERGE_SEGMENTS,
   * default 1; 0 skips the merge): fewer segments, less work per query.
   */
  readonly mergeSegments: number;
  /**
   * When a load builds the lookalike graph (BINTEL_VECTOR_BUILD): `after` (default) the rows are
   * served, vectors loaded flat and the graph written by a merge once the alias has moved
   * (lookalikes exact and slower meanwhile, meta.index_status "building"); `during`: before.
   */
  readonly vectorBuild: 'after' | 'during';
  /** Index sorting on each resource's default sort (BINTEL_INDEX_SORT, default off): a deep page of the default order stops early, a descending one gets far slower. */
  readonly indexSort: boolean;
  /** Deadline of one Elasticsearch request made by the API, in ms (BINTEL_ES_TIMEOUT_MS): past it the call is 503 with Retry-After. */
  readonly esTimeoutMs: number;
  /** Redis URL. */
  readonly redisUrl: string;
  /**
   * Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES=host:port,host:port,...); when set, every
   * Redis client (API, CLI, workers) is ioredis' Cluster client and REDIS_URL is not used
   * (its password and TLS, when any, still apply to each node).
   */
  readonly redisClusterNodes: readonly { host: string; port: number }[] | null;
  /** Prefix of every index, alias and Redis key. Lowercase letters, digits, '-' and '_'. */
  readonly namespace: string;
  /** HTTP port of the API. */
  readonly port: number;
  /** Interface the API binds (0.0.0.0 in containers). */
  readonly host: string;
  /** Where bintel keeps local state: the Elasticsearch install, its data and logs, demo data. */
  readonly home: string;
  /** Version of the local Elasticsearch that `bintel es start` provisions. */
  readonly esVersion: string;
  /** Heap of the local Elasticsearch, e.g. "1g". */
  readonly esHeap: string;
  /** Port of the local Elasticsearch (taken from esUrl). */
  readonly esPort: number;
  /** pino log level. */
  readonly logLevel: string;
  /** Requests per minute per user of an organization (all its keys and tokens; every authenticated call, dry runs included). */
  readonly rateLimitPerMinute: number;
  /** BINTEL_CORS_ORIGINS: browser origins allowed to call the API (CORS); empty: no CORS headers at all. */
  readonly corsOrigins: readonly string[];
  /** Active child keys one user may have, whichever of its root keys made them (POST /v1/api-keys beyond: 429 QUOTA_EXCEEDED). */
  readonly maxChildKeys: number;
  /** Active keys (root and child) of one organization: a child key beyond is 429 QUOTA_EXCEEDED. */
  readonly maxOrgKeys: number;
  /** Child keys one user may create per UTC day, revoked or not (beyond: 429 QUOTA_EXCEEDED). */
  readonly maxKeyCreationsPerDay: number;
  /** Seconds a revoked key's records are kept (listed as revoked) before they are purged. */
  readonly revokedKeyRetentionS: number;
  /** Rows per user of an organization per UTC day (all its keys and tokens); dry runs do not count toward it, cache hits do. */
  readonly dailyRowCap: number;
  /**
   * Seconds during which rows an organization paid for are free to fetch again (a cache hit: the
   * same rows, at the same tier and signals, from the same data load); 0 turns it off.
   */
  readonly cacheTtlS: number;
  /** Distinct pages of one filter combination and order served per window before CRAWL_DETECTED. */
  readonly crawlThreshold: number;
  /** Totals up to this are counted by the page query; above, the first call says count_pending. */
  readonly exactCountUpTo: number;
  /** Deepest row served with from/size (at most index.max_result_window); deeper pages walk with search_after. */
  readonly pageWindow: number;
  /** Ingest logs heap figures at each forced collection (BINTEL_DEBUG_GC=1). */
  readonly debugGc: boolean;
  /** Directory of async export files (shared by every server process in production). */
  readonly exportDir: string;
  /** Most rows of one async export (POST /v1/exports `max_rows`). */
  readonly exportMaxRows: number;
  /** Hours an async export file (and its job) is kept after it completes. */
  readonly exportTtlH: number;
  /** Queued or running async exports one organization may have at once (more: 429). */
  readonly exportMaxActive: number;
  /** Async export jobs one organization keeps (any status, until their records expire; more: 429 QUOTA_EXCEEDED); GET /v1/exports reads at most these. */
  readonly exportMaxRetained: number;
  /** Candidates the knn search of POST /v1/lookalikes considers per shard (more: better recall, slower). */
  readonly lookalikeCandidates: number;
  /** Largest JSON body of POST /v1/reports, in bytes (its optional `payload` included); more is 413. */
  readonly reportMaxBytes: number;
  /** Open bug reports, and apart open review flags, one organization may have (more: 429 until an operator resolves some). */
  readonly feedbackMaxOpen: number;
  /** Per-user and per-organization caps on stored user records (more: 429 QUOTA_EXCEEDED); see CONFIG_DEFAULTS.records. */
  readonly records: RecordCaps;
  /**
   * Port of the Prometheus `/metrics` listener of `bintel serve` and `bintel worker` (its own
   * port, never the API's); null (BINTEL_METRICS_PORT unset): no listener. 0: any free port.
   */
  readonly metricsPort: number | null;
  /** Interface the metrics listener binds (BINTEL_METRICS_HOST, default 127.0.0.1). */
  readonly metricsHost: string;
  /** Whether a server process also runs background jobs (false: only `bintel worker` processes do). */
  readonly workerInProcess: boolean;
  /** Jobs one process runs at once. */
  readonly jobConcurrency: number;
  /**
   * Lease of a worker on a job, in ms: renewed while the worker lives; a job whose lease lapsed
   * (its worker died) is given to another worker, and failed (its reservation released) after
   * the second lapse.
   */
  readonly jobLockMs: number;
  /** A reservation this old with no live job (its process died before the enqueue) is released by the sweeper. */
  readonly jobSweepAfterS: number;
  /** Attempts of a job that fails (an error, not a dead worker) before it is failed for good. */
  readonly jobAttempts: number;
  /** Credits (milli) a writing job reserves on acceptance, per channel. */
  readonly writingReserveMilli: { email: number; linkedin: number };
  /** The global writing temperature (a user's override replaces it for personal plays). */
  readonly writingTemperature: number;
  /** Days a writing job (and its idempotency key) is kept. */
  readonly writingRetentionDays: number;
  /** A writing job not finished within this many ms fails (its reservation released). */
  readonly writingTimeoutMs: number;
  /** OpenAI-compatible chat-completions endpoint (base URL, e.g. https://api.openai.com/v1) and model; unset: the deterministic writer. */
  readonly writerUrl: string | null;
  readonly writerModel: string | null;
  /** Bearer key of the model endpoint (never logged). */
  readonly writerKey: string | null;
  readonly writerTimeoutMs: number;
}

const NAMESPACE_RE = /^[a-z0-9][a-z0-9_-]{0,40}$/;

export class ConfigError extends Error {}

/** A PEM key given inline (`-----BEGIN ...`) or as a file path; null when unset. */
function pemOrFile(name: string, raw: string | undefined): string | null {
  if (!raw) return null;
  if (raw.includes('-----BEGIN')) return raw.replace(/\\n/g, '\n');
  try {
    return readFileSync(raw, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}: "${raw}" is neither a PEM key nor a readable file (${(err as Error).message})`);
  }
}

/** Fewest bytes of an HS256 secret: RFC 7518 3.2 asks for a key at least as long as the hash (256 bits). */
const HS256_MIN_BYTES = 32;

/** BINTEL_JWT_SECRET: null when unset; refused when shorter than HS256_MIN_BYTES. */
function hs256Secret(raw: string | undefined): string | null {
  if (!raw) return null;
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes < HS256_MIN_BYTES) throw new ConfigError(`BINTEL_JWT_SECRET: ${bytes} bytes; an HS256 secret needs at least ${HS256_MIN_BYTES} bytes (e.g. openssl rand -base64 48)`);
  return raw;
}

/** REDIS_CLUSTER_NODES: comma-separated host:port (or redis:// URLs); null when unset or empty. */
export function parseClusterNodes(raw: string | undefined): { host: string; port: number }[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  return raw.split(',').map((part) => {
    const s = part.trim();
    let url: URL;
    try {
      url = new URL(s.includes('://') ? s : `redis://${s}`);
    } catch {
      throw new ConfigError(`REDIS_CLUSTER_NODES: "${s}" is not host:port`);
    }
    const port = Number(url.port || 6379);
    if (!url.hostname || !Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(`REDIS_CLUSTER_NODES: "${s}" is not host:port`);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  });
}

/**
 * BINTEL_CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`, as a browser sends them in
 * `Origin`; a trailing slash is dropped); empty or unset: none. A wildcard, a path, a query or a
 * scheme other than http(s) is a configuration error: the list names exactly who may call.
 */
export function parseCorsOrigins(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part) => part.trim()).filter(Boolean).map((s) => {
    let url: URL | null = null;
    try {
      url = new URL(s);
    } catch {
      // reported below
    }
    const origin = url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : null;
    if (!origin || origin === 'null' || s.replace(/\/$/, '').toLowerCase() !== origin) throw new ConfigError(`BINTEL_CORS_ORIGINS: "${s}" is not an origin (scheme://host[:port], e.g. https://app.example.com; no wildcard, path or query)`);
    return origin;
  });
}

/**
 * Defaults of the settings that the API's documentation states (the OpenAPI descriptions read
 * them from here, so a changed default changes the document).
 */
export const CONFIG_DEFAULTS = Object.freeze({
  /** BINTEL_MAX_CHILD_KEYS: active child keys of one user. */
  maxChildKeys: 100,
  /** BINTEL_MAX_ORG_KEYS: active keys of one organization. */
  maxOrgKeys: 1_000,
  /** BINTEL_MAX_KEY_CREATIONS_PER_DAY: child keys one user may create per UTC day. */
  maxKeyCreationsPerDay: 100,
  /** BINTEL_REVOKED_KEY_RETENTION_S: how long a revoked key is kept before it is purged (30 days). */
  revokedKeyRetentionS: 30 * 86_400,
  /** BINTEL_EXPORT_MAX_ROWS: rows of one async export. */
  exportMaxRows: 50_000,
  /** BINTEL_EXPORT_MAX_ACTIVE: an organization's async exports queued or running. */
  exportMaxActive: 5,
  /** BINTEL_EXPORT_MAX_RETAINED: an organization's async export jobs kept (any status). */
  exportMaxRetained: 200,
  /** BINTEL_REPORT_MAX_BYTES: the payload of a bug report. */
  reportMaxBytes: 65_536,
  /** Caps on what users store (BINTEL_<NAME>, e.g. BINTEL_TAGS_MAX_PER_USER): see RecordCaps. */
  records: Object.freeze({
    tagsMaxPerUser: 10_000,
    tagsMaxPerOrg: 50_000,
    writingMaxPerUser: 200,
    writingMaxPerOrg: 2_000,
    identitiesMaxPerUser: 20,
    identitiesMaxPerOrg: 200,
    identityMaxBytes: 65_536,
    feedbackMaxOpenPerUser: 100,
  }),
  /** BINTEL_WRITING_CREDITS_EMAIL and _LINKEDIN: credits a writing job reserves. */
  writingCredits: Object.freeze({ email: 5, linkedin: 3 }),
});

/** Builds the configuration from an environment (default: process.env). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const esNodes = (env.ES_URL || 'http://127.0.0.1:9200').split(',').map((u) => u.trim().replace(/\/+$/, '')).filter(Boolean);
  const esUrl = esNodes[0] ?? 'http://127.0.0.1:9200';
  const redisUrl = env.REDIS_URL || 'redis://127.0.0.1:6379';
  const namespace = env.BINTEL_NAMESPACE || 'bintel';
  if (!NAMESPACE_RE.test(namespace)) {
    throw new ConfigError(
      `BINTEL_NAMESPACE "${namespace}" is invalid: use 1-41 lowercase letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
  let url: URL = new URL('http://127.0.0.1:9200');
  for (const [i, node] of esNodes.entries()) {
    try {
      const u = new URL(node);
      if (i === 0) url = u;
    } catch {
      throw new ConfigError(`ES_URL "${node}" is not a URL`);
    }
  }
  try {
    new URL(redisUrl);
  } catch {
    throw new ConfigError(`REDIS_URL "${redisUrl}" is not a URL`);
  }
  const redisClusterNodes = parseClusterNodes(env.REDIS_CLUSTER_NODES);
  const port = Number(env.PORT || 3000);
  const positive = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} "${raw}" must be a positive integer`);
    return n;
  };
  const nonNegative = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} "${raw}" must be a whole number of 0 or more`);
    return n;
  };
  /** A credit amount (up to 3 decimals) as integer milli-credits. */
  const credits = (name: string, fallback: number): number => {
    const raw = env[name];
    const n = raw === undefined || raw === '' ? fallback : Number(raw);
    const milli = Math.round(n * 1000);
    if (!Number.isFinite(n) || n < 0 || Math.abs(milli - n * 1000) > 1e-6) throw new ConfigError(`${name} "${raw}" must be a number of credits of 0 or more, with at most 3 decimals`);
    return milli;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === '1' || raw === 'true') return true;
    if (raw === '0' || raw === 'false') return false;
    throw new ConfigError(`${name} "${raw}" must be true or false (1 or 0)`);
  };
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT "${env.PORT}" is not a port number`);
  // As root the state lives outside /root, which the unprivileged Elasticsearch user cannot enter.
  const home = env.BINTEL_HOME || (process.getuid?.() === 0 ? '/var/lib/bintel' : join(homedir(), '.bintel'));
  return Object.freeze({
    esUrl,
    esNodes,
    esTimeoutMs: positive('BINTEL_ES_TIMEOUT_MS', 10_000),
    shutdownMs: positive('BINTEL_SHUTDOWN_MS', 10_000),
    jwt: Object.freeze({
      secret: hs256Secret(env.BINTEL_JWT_SECRET),
      publicKey: pemOrFile('BINTEL_JWT_PUBLIC_KEY', env.BINTEL_JWT_PUBLIC_KEY),
      jwks: env.BINTEL_JWT_JWKS || null,
      privateKey: pemOrFile('BINTEL_JWT_PRIVATE_KEY', env.BINTEL_JWT_PRIVATE_KEY),
      issuer: env.BINTEL_JWT_ISSUER || null,
      audience: env.BINTEL_JWT_AUDIENCE || null,
      maxTtlS: positive('BINTEL_JWT_MAX_TTL_S', 86_400),
    }),
    shards: positive('BINTEL_SHARDS', 1),
    replicas: nonNegative('BINTEL_REPLICAS', 0),
    mergeSegments: nonNegative('BINTEL_MERGE_SEGMENTS', 1),
    indexSort: flag('BINTEL_INDEX_SORT', false),
    vectorBuild: vectorBuildOf(env.BINTEL_VECTOR_BUILD),
    redisUrl,
    redisClusterNodes,
    namespace,
    port,
    host: env.BINTEL_HOST || '127.0.0.1',
    home,
    esVersion: env.BINTEL_ES_VERSION || '8.19.7',
    esHeap: env.BINTEL_ES_HEAP || '1g',
    esPort: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitPerMinute: positive('BINTEL_RATE_LIMIT_PER_MIN', 600),
    corsOrigins: parseCorsOrigins(env.BINTEL_CORS_ORIGINS),
    maxChildKeys: positive('BINTEL_MAX_CHILD_KEYS', CONFIG_DEFAULTS.maxChildKeys),
    maxOrgKeys: positive('BINTEL_MAX_ORG_KEYS', CONFIG_DEFAULTS.maxOrgKeys),
    maxKeyCreationsPerDay: positive('BINTEL_MAX_KEY_CREATIONS_PER_DAY', CONFIG_DEFAULTS.maxKeyCreationsPerDay),
    revokedKeyRetentionS: positive('BINTEL_REVOKED_KEY_RETENTION_S', CONFIG_DEFAULTS.revokedKeyRetentionS),
    dailyRowCap: positive('BINTEL_DAILY_ROW_CAP', 100_000),
    cacheTtlS: nonNegative('BINTEL_CACHE_TTL_S', 600),
    crawlThreshold: positive('BINTEL_CRAWL_THRESHOLD', 30),
    pageWindow: Math.min(10_000, positive('BINTEL_PAGE_WINDOW', 10_000)),
    exactCountUpTo: positive('BINTEL_EXACT_COUNT_UP_TO', 10_000),
    debugGc: Boolean(env.BINTEL_DEBUG_GC),
    exportDir: env.BINTEL_EXPORT_DIR || join(home, 'exports'),
    exportMaxRows: positive('BINTEL_EXPORT_MAX_ROWS', CONFIG_DEFAULTS.exportMaxRows),
    exportTtlH: positive('BINTEL_EXPORT_TTL_H', 24),
    exportMaxActive: positive('BINTEL_EXPORT_MAX_ACTIVE', CONFIG_DEFAULTS.exportMaxActive),
    exportMaxRetained: positive('BINTEL_EXPORT_MAX_RETAINED', CONFIG_DEFAULTS.exportMaxRetained),
    lookalikeCandidates: Math.min(10_000, positive('BINTEL_LOOKALIKE_CANDIDATES', 500)),
    reportMaxBytes: positive('BINTEL_REPORT_MAX_BYTES', CONFIG_DEFAULTS.reportMaxBytes),
    feedbackMaxOpen: positive('BINTEL_FEEDBACK_MAX_OPEN', 1_000),
    records: {
      tagsMaxPerUser: positive('BINTEL_TAGS_MAX_PER_USER', CONFIG_DEFAULTS.records.tagsMaxPerUser),
      tagsMaxPerOrg: positive('BINTEL_TAGS_MAX_PER_ORG', CONFIG_DEFAULTS.records.tagsMaxPerOrg),
      writingMaxPerUser: positive('BINTEL_WRITING_MAX_PER_USER', CONFIG_DEFAULTS.records.writingMaxPerUser),
      writingMaxPerOrg: positive('BINTEL_WRITING_MAX_PER_ORG', CONFIG_DEFAULTS.records.writingMaxPerOrg),
      identitiesMaxPerUser: positive('BINTEL_IDENTITIES_MAX_PER_USER', CONFIG_DEFAULTS.records.identitiesMaxPerUser),
      identitiesMaxPerOrg: positive('BINTEL_IDENTITIES_MAX_PER_ORG', CONFIG_DEFAULTS.records.identitiesMaxPerOrg),
      identityMaxBytes: positive('BINTEL_IDENTITY_MAX_BYTES', CONFIG_DEFAULTS.records.identityMaxBytes),
      feedbackMaxOpenPerUser: positive('BINTEL_FEEDBACK_MAX_OPEN_PER_USER', CONFIG_DEFAULTS.records.feedbackMaxOpenPerUser),
    },
    metricsPort: ((raw) => {
      if (raw === undefined || raw === '') return null;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`BINTEL_METRICS_PORT "${raw}" is not a port number`);
      return n;
    })(env.BINTEL_METRICS_PORT),
    metricsHost: env.BINTEL_METRICS_HOST || '127.0.0.1',
    workerInProcess: flag('BINTEL_WORKER_IN_PROCESS', true),
    jobConcurrency: positive('BINTEL_JOB_CONCURRENCY', 2),
    jobLockMs: Math.max(1000, positive('BINTEL_JOB_LOCK_MS', 30_000)),
    jobSweepAfterS: positive('BINTEL_JOB_SWEEP_AFTER_S', 300),
    jobAttempts: positive('BINTEL_JOB_ATTEMPTS', 3),
    writingReserveMilli: { email: credits('BINTEL_WRITING_CREDITS_EMAIL', CONFIG_DEFAULTS.writingCredits.email), linkedin: credits('BINTEL_WRITING_CREDITS_LINKEDIN', CONFIG_DEFAULTS.writingCredits.linkedin) },
    writingRetentionDays: positive('BINTEL_WRITING_RETENTION_DAYS', 30),
    writingTemperature: ((raw) => {
      const n = raw === undefined || raw === '' ? 0.7 : Number(raw);
      if (!Number.isFinite(n) || n < 0 || n > 2) throw new ConfigError(`BINTEL_WRITING_TEMPERATURE "${raw}" must be a number from 0 to 2`);
      return n;
    })(env.BINTEL_WRITING_TEMPERATURE),
    writingTimeoutMs: positive('BINTEL_WRITING_TIMEOUT_MS', 60_000),
    writerUrl: env.BINTEL_WRITER_URL || null,
    writerModel: env.BINTEL_WRITER_MODEL || null,
    writerKey: env.BINTEL_WRITER_KEY || null,
    writerTimeoutMs: positive('BINTEL_WRITER_TIMEOUT_MS', 30_000),
  });
}

function vectorBuildOf(v: string | undefined): 'after' | 'during' {
  if (v === undefined || v === '' || v === 'after') return 'after';
  if (v === 'during') return 'during';
  throw new ConfigError(`BINTEL_VECTOR_BUILD "${v}" is invalid: use after or during`);
}
