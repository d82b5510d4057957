/**
 * No failed promise ends a server process. A real `bintel serve` runs as a child process (a crash
 * shows as the child exiting), on a redis-server of this suite's own and behind a TCP proxy to
 * Elasticsearch that holds the background count in flight while Redis is paused or killed: the
 * count's own failure handling meets a Redis that does not answer, and the process keeps serving
 * with nothing left unhandled. Then the process-level handler directly: a rejection nobody
 * handles is logged at error level with the request id, and the process goes on.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { checkedFetch } from '../helpers/contract.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { auditDir } from '../runner/secret-audit.ts';
import { pollUntil } from '../helpers/env.ts';

const t = suite('unhandled rejections');
const ROOT = new URL('../..', import.meta.url).pathname;
let h: Harness;
let data: DataFiles | undefined;
let redis: RedisServer;
let es: TcpProxy;
let server: ServerChild | null = null;
let secret = '';

type LogLine = { level?: number; msg?: string; [k: string]: unknown };

/** A `bintel serve` child process, its JSON log lines and its end. */
interface ServerChild {
  proc: ChildProcess;
  url: string;
  lines: LogLine[];
  stderr: () => string;
  /** The first log line (from now on or already seen) that `match` accepts, or the process's end. */
  until(match: (l: LogLine) => boolean): Promise<{ line: LogLine } | { exit: number | null; signal: string | null }>;
}

async function startServer(env: Record<string, string>): Promise<ServerChild> {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'serve', '--port', String(port)], { env: { ...process.env, LOG_LEVEL: 'debug', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Its log joins the run's audit (no secret in any log line) as the harness's own does.
  const audit = auditDir();
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  let ended: { exit: number | null; signal: string | null } | null = null;
  proc.once('exit', (code, signal) => {
    ended = { exit: code, signal };
    for (const w of waiters) w();
  });
  const listening = new Promise<void>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`bintel serve exited with ${code}: ${stderr}`)));
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      if (l.includes('bintel API listening')) resolve();
      if (!l.startsWith('{')) return;
      if (audit) appendFileSync(join(audit, `${proc.pid}.log`), `${l}\n`);
      lines.push(JSON.parse(l) as LogLine);
      for (const w of waiters) w();
    });
  });
  await listening;
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    lines,
    stderr: () => stderr,
    until: (match) =>
      new Promise((resolve) => {
        const check = () => {
          const line = lines.find(match);
          if (line) resolve({ line });
          else if (ended) resolve(ended);
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

const get = async (s: ServerChild, path: string, auth?: string) => {
  const res = await checkedFetch(s.url + path, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
};

/** Starts a list call whose total is counted in the background, and holds that count at the proxy. */
async function countInFlight(s: ServerChild, states: string): Promise<void> {
  es.hold(/\/_count\b/);
  const before = es.held;
  const res = await get(s, `/v1/companies?states=${states}&include_count=true&page_size=1`, secret);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.meta.count_pending, true, 'the total is counted in the background');
  // The count is sent in the background: the answer can come back before it reaches the proxy.
  await pollUntil(() => es.held >= before + 1, { what: 'the background count held at the proxy', timeoutMs: 10_000 });
  assert.is(es.held, before + 1, 'the background count is in flight, held at the proxy');
}

/** After a fault: the count's failure handling has run to its end without ending the process. */
async function assertStillServing(s: ServerChild): Promise<void> {
  // The last thing the count's failure handling does is try to clear its pending mark in Redis.
  const outcome = await s.until((l) => l.msg === 'background count: its pending mark not cleared' || l.msg === 'unhandled rejection');
  assert.ok('line' in outcome, `the server process ended (${JSON.stringify(outcome)}): ${s.stderr().slice(-2000)}`);
  assert.is(s.proc.exitCode, null, 'the process is alive');
  const unhandled = s.lines.filter((l) => l.msg === 'unhandled rejection');
  assert.equal(unhandled, [], 'nothing was left unhandled');
  const live = await get(s, '/v1/health/live');
  assert.is(live.status, 200);
  assert.is(live.body.data.pid, s.proc.pid);
}

t.before(async () => {
  redis = await startRedisServer();
  h = await startHarness({ REDIS_URL: redis.url, BINTEL_WORKER_IN_PROCESS: '0' });
  data = await loadGenerated(h, { companies: 80, personnel: 20, brokerOffices: 6, brokers: 2, seed: 73 });
  ({ secret } = await withOrg(h, { milli: 10_000_000 }));
  const node = new URL(h.config.esNodes[0]);
  es = await startTcpProxy({ host: node.hostname, port: Number(node.port || 9200) });
});
t.after(async () => {
  await stopServer();
  es?.release();
  await h?.close().catch(() => {});
  await data?.cleanup();
  await es?.close();
  await redis?.stop();
});

/** A fresh server (totals above 5 counted in the background), Redis through this suite's server and Elasticsearch through the proxy. */
async function freshServer(): Promise<ServerChild> {
  await stopServer();
  server = await startServer({ BINTEL_NAMESPACE: h.config.namespace, REDIS_URL: redis.url, ES_URL: es.url, BINTEL_EXACT_COUNT_UP_TO: '5', BINTEL_CACHE_TTL_S: '0' });
  return server;
}

async function stopServer(): Promise<void> {
  const proc = server?.proc;
  server = null;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((r) => {
    proc.once('exit', () => r());
    proc.kill('SIGKILL');
  });
}

t('a background count in flight while Redis is paused: the process lives and answers', async () => {
  const s = await freshServer();
  await countInFlight(s, 'TX,CA,NY,FL,OH,PA,IL');
  await redis.pause(120_000);
  try {
    es.release();
    await assertStillServing(s);
  } finally {
    await redis.unpause();
  }
});

t('a background count in flight while Redis is killed: the process lives and answers', async () => {
  const s = await freshServer();
  await countInFlight(s, 'TX,CA,NY,FL,OH,PA,IL,GA,NC,MI');
  await redis.kill();
  try {
    es.release();
    await assertStillServing(s);
  } finally {
    await redis.start();
  }
});

/** Runs test/helpers/reject-once.ts: a rejection nobody handles, inside a request's scope. */
async function rejectOnce(mode: 'guarded' | 'unguarded'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/run-ts.js'), join(ROOT, 'test/helpers/reject-once.ts'), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  return { code, stdout, stderr };
}

t('without the process handler, one unhandled rejection ends a process (what the handler prevents)', async () => {
  const run = await rejectOnce('unguarded');
  assert.is(run.code, 1, run.stderr);
  assert.not.match(run.stdout, 'still serving');
});

t('the process handler logs an unhandled rejection at error level with its request id, and the process goes on', async () => {
  const run = await rejectOnce('guarded');
  assert.is(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);
  const logged = lines.filter((l) => l.msg === 'unhandled rejection');
  assert.is(logged.length, 1, run.stdout);
  assert.is(logged[0].level, 50, 'error level');
  assert.is(logged[0].requestId, 'req_rejectonce0000000000000000001');
  assert.is((logged[0].err as { message?: string }).message, 'nobody caught this');
  // pino writes its line asynchronously: it may land after "still serving", which is written
  // on the next turn after the rejection; that it was written at all is what shows the process went on.
  assert.match(run.stdout, /^still serving$/m, 'the process went on after it');
});

t.run();
