/**
 * A real server for tests: listens on a free port with the run's namespace, real Redis
 * and Elasticsearch; helpers to issue keys and call the API.
 */
import { loadConfig, type Config } from '../../server/config.ts';
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
