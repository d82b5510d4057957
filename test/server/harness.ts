/**
 * A real server for tests: listens on a free port with the run's namespace, real Redis
 * and Elasticsearch; helpers to issue keys and call the API.
 *
 * The usual set-up of a suite, in its `before` hook:
 *
 *     h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000' });
 *     data = await loadGenerated(h, { companies: 600, personnel: 900, brokerOffices: 60, brokers: 15, seed: 11 });
 *     ({ secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 }));
 *
 * and in `after`: `await h.close(); await data.cleanup();`. `loadFixtures(h)` loads
 * test/fixtures instead of generated data.
 */
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { loadConfig, type Config } from '../../core/config.ts';
import { serve, type Running } from '../../server/serve.ts';
import { createLogger, createServices } from '../../server/context.ts';
import { auditLogger, auditStream, recordSecrets, secretsIn } from '../runner/secret-audit.ts';
import { contract } from '../helpers/contract.ts';
import type { KeyWithSecret, CreateKeyInput, PublicKey } from '../../server/services/keys.ts';

export { copyFixtures, loadFixtures, loadGenerated, type DataFiles, type GeneratedSizes, type LoadOptions } from '../helpers/data.ts';

/** A running server and the means to use it. */
export interface Harness {
  /** The server's configuration (the run's namespace, with the overrides given). */
  config: Config;
  /** The server itself, with its services (credits, keys, es, ...) for direct set-up and checks. */
  running: Running;
  url: string;
  /** A root key created directly (as the operator's CLI does); user defaults to 'u1'. */
  key(input: Partial<CreateKeyInput> & { org: string; user?: string }): Promise<KeyWithSecret>;
  /** One HTTP request (`secret` as a Bearer token, `body` as JSON or `raw` as is); the body parsed when it is JSON. The response is checked against the OpenAPI document (test/helpers/contract.ts): an undocumented status, content type or body throws. */
  call(method: string, path: string, opts?: { secret?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  /** Stops the server and closes its clients. */
  close(): Promise<void>;
}

/** One line the server logged, parsed. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** The server's logger: the audit log's (when the runner audits) and, with `onLog`, every line at info and above handed to it too. */
function serverLogger(onLog?: (line: LogLine) => void): Logger | undefined {
  if (!onLog) return auditLogger();
  const streams: pino.StreamEntry[] = [{ level: 'info', stream: { write: (s: string) => onLog(JSON.parse(s) as LogLine) } }];
  const audit = auditStream();
  if (audit) streams.push({ level: 'debug', stream: audit });
  return createLogger('debug', pino.multistream(streams));
}

/**
 * Starts a server on a free port with the configuration of the environment (the run's
 * namespace), `env` overriding it (e.g. `{ BINTEL_RATE_LIMIT_PER_MIN: '3' }`); logging is
 * silent unless LOG_LEVEL says otherwise, and `onLog` receives every line at info and above (a
 * test sees when the server finished a request). Close it with `close()`.
 */
export async function startHarness(env: Record<string, string> = {}, opts: { onLog?: (line: LogLine) => void } = {}): Promise<Harness> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', ...env });
  const log = serverLogger(opts.onLog);
  const running = await serve(config, { port: 0, services: log ? createServices(config, { log }) : undefined });
  return {
    config,
    running,
    url: running.url,
    async key(input) {
      const issued = await running.services.keys.createRoot({ user: 'u1', ...input });
      recordSecrets([issued.secret]);
      return issued;
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.secret) headers.authorization = `Bearer ${opts.secret}`;
      recordSecrets([opts.secret]);
      let body: string | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(running.url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      recordSecrets(secretsIn(parsed));
      contract().assert({ method, path, status: res.status, contentType: res.headers.get('content-type'), body: parsed });
      return { status: res.status, body: parsed, headers: res.headers };
    },
    close: () => running.close(),
  };
}

export type Res = { status: number; body: any; headers: Headers };

/** An error envelope with its status and code, request id, zero charge, and (optionally) the field and issue named. */
export function assertError(res: Res, status: number, code: string, detail: { field?: string; issue?: string } = {}): void {
  const { field, issue } = detail;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  const e = res.body?.error;
  if (res.body?.ok !== false || e?.code !== code) throw new Error(`expected error ${code}: ${JSON.stringify(res.body)}`);
  if (typeof e.message !== 'string' || !Array.isArray(e.details)) throw new Error(`malformed error envelope: ${JSON.stringify(res.body)}`);
  if (e.request_id !== res.headers.get('x-request-id')) throw new Error('request_id differs from X-Request-Id');
  if (JSON.stringify(res.body.meta) !== JSON.stringify({ credits_charged: 0 })) throw new Error(`error meta must be {credits_charged: 0}: ${JSON.stringify(res.body.meta)}`);
  if (field && !e.details.some((d: { field: string; issue: string }) => d.field === field && (!issue || d.issue === issue))) {
    throw new Error(`details should name ${field}${issue ? `/${issue}` : ''}: ${JSON.stringify(e.details)}`);
  }
}

/** What `withOrg` sets up: an organization, optionally with credits, and a root key of it. */
export interface OrgOptions extends Partial<Omit<CreateKeyInput, 'org'>> {
  /** The organization; a new one (`org-<random>`) when omitted. */
  org?: string;
  /** Milli-credits granted to the organization's pool (1,000 = 1 credit); none when omitted. */
  milli?: number;
}

/**
 * Creates a root key of an organization (key options as for `Harness.key`: field_tier,
 * key_type, user, scopes...) and grants it `milli` milli-credits. More keys of the same
 * organization: `h.key({ org, ... })`.
 */
export async function withOrg(h: Harness, opts: OrgOptions = {}): Promise<{ org: string; secret: string; key: PublicKey }> {
  const { org = `org-${randomUUID().slice(0, 8)}`, milli, ...input } = opts;
  const { key, secret } = await h.key({ ...input, org });
  if (milli !== undefined) await h.running.services.credits.grant(org, milli);
  return { org, secret, key };
}
