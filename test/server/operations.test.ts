/**
 * Operating the service through faults, from outside: liveness answers whatever the
 * dependencies, several Elasticsearch nodes in ES_URL fail over when one is dead, a
 * slow Elasticsearch meets the request deadline (BINTEL_ES_TIMEOUT_MS) with 503 and
 * Retry-After, and nothing is charged for a call that fails.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server, type Socket } from 'node:net';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { checkedFetch } from '../helpers/contract.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { pollUntil } from '../helpers/env.ts';

const t = suite('operations');
const ROOT = new URL('../..', import.meta.url).pathname;
const ES = new URL((process.env.ES_URL || 'http://127.0.0.1:9200').split(',')[0]);
let h: Harness;
let data: DataFiles | undefined;

/** A TCP server that accepts connections and never answers: a stalled Elasticsearch. */
async function blackHole(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.before(async () => {
  h = await startHarness();
  data = await loadGenerated(h, { companies: 60, personnel: 30, brokerOffices: 8, brokers: 3, seed: 51 });
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

t('liveness answers while the process lives; readiness names what is down', async () => {
  const live = await h.call('GET', '/v1/health/live');
  assert.is(live.status, 200);
  assert.is(live.body.data.status, 'alive');
  const dead = await startHarness({ ES_URL: `http://127.0.0.1:${await closedPort()}` });
  try {
    assert.is((await dead.call('GET', '/v1/health/live')).status, 200, 'alive with Elasticsearch gone');
    const ready = await dead.call('GET', '/v1/health');
    assertError(ready, 503, 'SERVICE_UNAVAILABLE', { field: 'elasticsearch', issue: 'unreachable' });
    assert.ok(Number(ready.headers.get('retry-after')) > 0, 'Retry-After on 503');
  } finally {
    await dead.close();
  }
});

t('ES_URL with several nodes: a dead node is skipped, every call answers', async () => {
  const env = { ES_URL: `http://127.0.0.1:${await closedPort()},${ES.origin}`, BINTEL_CACHE_TTL_S: '0' };
  const two = await startHarness(env);
  try {
    const { secret } = await withOrg(two, { milli: 1_000_000 });
    for (let i = 0; i < 6; i++) {
      const res = await two.call('GET', `/v1/companies?page_size=2&page=${i}`, { secret });
      assert.is(res.status, 200, JSON.stringify(res.body));
      const detail = await two.call('GET', `/v1/companies/${res.body.data[0].id}`, { secret });
      assert.is(detail.status, 200, JSON.stringify(detail.body));
    }
  } finally {
    await two.close();
  }
});

t('a stalled Elasticsearch: 503 with Retry-After within the deadline, nothing charged', async () => {
  const hole = await blackHole();
  const slow = await startHarness({ ES_URL: hole.url, BINTEL_ES_TIMEOUT_MS: '800' });
  try {
    const { org, secret } = await withOrg(slow, { milli: 1_000_000 });
    const started = Date.now();
    const res = await slow.call('GET', '/v1/companies?page_size=2', { secret });
    const ms = Date.now() - started;
    assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    // The deadline is what ends the call (a few 0.8 s deadlines with the client's retries), not
    // the client's default of a minute: a property of the configuration, far from any noise.
    assert.ok(ms < 30_000, `answered after ${ms} ms`);
    assert.is(await slow.running.services.credits.balance(org), 1_000_000, 'nothing charged');
  } finally {
    await slow.close();
    await hole.close();
  }
});

/** An HTTP proxy to Elasticsearch that answers 429 to the next `busy` searches (a full search queue). */
async function busyProxy(): Promise<{ url: string; busy: (n: number) => void; close: () => Promise<void> }> {
  let busy = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.includes('/_search') && busy > 0) {
      busy--;
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'es_rejected_execution_exception', reason: 'search queue full' }, status: 429 }));
      return;
    }
    const up = http.request({ host: ES.hostname, port: ES.port || 9200, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    busy: (n) => (busy = n),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

t('Elasticsearch answering 429: backed off and asked again; still busy: 503 with Retry-After, nothing charged', async () => {
  const proxy = await busyProxy();
  const busy = await startHarness({ ES_URL: proxy.url, BINTEL_CACHE_TTL_S: '0' });
  try {
    const { org, secret } = await withOrg(busy, { milli: 1_000_000 });
    proxy.busy(2);
    const ok = await busy.call('GET', '/v1/companies?page_size=2', { secret });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    const paid = await busy.running.services.credits.balance(org);
    proxy.busy(1000);
    const res = await busy.call('GET', '/v1/companies?page_size=2&page=1', { secret });
    assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.is(await busy.running.services.credits.balance(org), paid, 'the refused call charged nothing');
  } finally {
    proxy.busy(0);
    await busy.close();
    await proxy.close();
  }
});

t('security headers on every answer, no CORS; a secret never reaches a log line', async () => {
  for (const path of ['/v1/health/live', '/v1/companies', '/v1/nope', '/v1/docs']) {
    const res = await h.call('GET', path);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff', path);
    assert.is(res.headers.get('x-frame-options'), 'DENY', path);
    assert.is(res.headers.get('access-control-allow-origin'), null, path);
  }
  // A server process logging everything (debug) while keys are issued, used, rotated and misused.
  const port = await closedPort();
  const env = { ...process.env, BINTEL_NAMESPACE: h.config.namespace, LOG_LEVEL: 'debug' };
  const server = spawn(process.execPath, [`${ROOT}bin/bintel.js`, 'serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  server.stdout.on('data', (d) => (logs += d));
  server.stderr.on('data', (d) => (logs += d));
  try {
    const base = `http://127.0.0.1:${port}`;
    await pollUntil(() => fetch(`${base}/v1/health/live`).then((r) => r.ok).catch(() => false), { what: 'the server live', timeoutMs: 10_000, everyMs: 100 });
    const { key, secret } = await withOrg(h, { milli: 1_000_000 });
    const secrets = [secret];
    const call = (path: string, s: string, init: RequestInit = {}) => checkedFetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${s}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
    await call('/v1/companies?page_size=2', secret);
    const child = (await (await call('/v1/api-keys', secret, { method: 'POST', body: JSON.stringify({ scopes: ['read:companies'], name: 'c' }) })).json()) as { data: { secret: string } };
    secrets.push(child.data.secret);
    await call('/v1/whoami', child.data.secret);
    const rotated = (await (await call(`/v1/api-keys/${key.id}/rotate`, secret, { method: 'POST' })).json()) as { data: { secret: string } };
    secrets.push(rotated.data.secret);
    await call('/v1/whoami', secret); // the old secret, now refused
    await call('/v1/whoami', `${rotated.data.secret}x`); // malformed
    await call(`/v1/companies?search=${encodeURIComponent(rotated.data.secret)}`, rotated.data.secret);
    // Seven calls above: every one of their request lines, before the secrets are looked for.
    const logged = () => logs.split('\n').filter((l) => l.includes('"msg":"request"') && !l.includes('/v1/health')).length;
    await pollUntil(() => logged() >= 7, { what: 'the server logging the seven requests', timeoutMs: 5_000 });
    for (const s of secrets) {
      assert.ok(s.length > 20);
      assert.not.ok(logs.includes(s), 'a secret appears in the logs');
      assert.not.ok(logs.includes(s.slice(8)), 'the random part of a secret appears in the logs');
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
});

t.run();
