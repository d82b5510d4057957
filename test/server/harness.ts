/**
 * A real server for tests: listens on a free port with the run's namespace, real Redis
 * and Elasticsearch; helpers to issue keys and call the API.
 */
import { loadConfig, type Config } from '../../core/config.ts';
import { serve, type Running } from '../../server/serve.ts';
import type { KeyWithSecret, CreateKeyInput } from '../../server/services/keys.ts';

export interface Harness {
  config: Config;
  running: Running;
  url: string;
  /** A root key created directly (as the operator's CLI does). */
  key(input: Partial<CreateKeyInput> & { org: string; user?: string }): Promise<KeyWithSecret>;
  call(method: string, path: string, opts?: { secret?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', ...env });
  const running = await serve(config, { port: 0 });
  return {
    config,
    running,
    url: running.url,
    key: (input) => running.services.keys.createRoot({ user: 'u1', ...input }),
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.secret) headers.authorization = `Bearer ${opts.secret}`;
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
      return { status: res.status, body: parsed, headers: res.headers };
    },
    close: () => running.close(),
  };
}

export type Res = { status: number; body: any; headers: Headers };

/** An error envelope with its status and code, request id, zero charge, and (optionally) the field and issue named. */
export function assertError(res: Res, status: number, code: string, field?: string, issue?: string): void {
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

/**
 * Loads test/fixtures (brokers, broker offices, companies, personnel) into the harness's
 * namespace, in load order, from a temp copy (ingest writes its error report beside the file).
 * Returns a function that removes the copy.
 */
export async function loadFixtures(h: Harness, opts: { sandbox?: boolean } = {}): Promise<() => Promise<void>> {
  const { mkdtemp, copyFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { ingestFile } = await import('../../ingest/run.ts');
  const fixtures = new URL('../fixtures/', import.meta.url).pathname;
  const dir = await mkdtemp(join(tmpdir(), 'bintel-fixtures-'));
  for (const r of ['brokers', 'broker-offices', 'companies', 'personnel']) {
    await copyFile(join(fixtures, `${r}.csv`), join(dir, `${r}.csv`));
    await ingestFile(h.config, r, join(dir, `${r}.csv`), { progress: null, sandbox: opts.sandbox });
  }
  return () => rm(dir, { recursive: true, force: true });
}
