/**
 * Several API processes share everything through Redis: two servers (each its own clients and
 * state) agree on cursors, counts, cache-hit receipts, revocation and rate limits; and
 * `bintel serve --workers 2` serves from two processes on one port and exits 0 on SIGTERM
 * after finishing what is in flight.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { get } from 'node:http';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { pollUntil } from '../helpers/env.ts';

const t = suite('multi-process');
const ROOT = new URL('../..', import.meta.url).pathname;
let a: Harness;
let b: Harness;
let data: DataFiles | undefined;

t.before(async () => {
  const env = { BINTEL_RATE_LIMIT_PER_MIN: '40', BINTEL_CACHE_TTL_S: '600', BINTEL_EXACT_COUNT_UP_TO: '5' };
  a = await startHarness(env);
  b = await startHarness(env);
  data = await loadGenerated(a, { companies: 120, personnel: 30, brokerOffices: 8, brokers: 3, seed: 61 });
});
t.after(async () => {
  await a.close();
  await b.close();
  await data?.cleanup();
});

t('a cursor, a count and a paid delivery of one server hold on the other', async () => {
  const { org, secret } = await withOrg(a, { milli: 10_000_000 });
  const q = '/v1/companies?states=TX,CA,NY,FL,OH,PA,IL&page_size=3';
  const first = await a.call('GET', q, { secret });
  assert.is(first.status, 200);
  const next = await b.call('GET', `${q}&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, { secret });
  assert.is(next.status, 200, JSON.stringify(next.body));
  assert.is(next.body.meta.page, 1);
  for (const r of next.body.data) assert.ok(!first.body.data.some((x: { id: string }) => x.id === r.id));
  // The count: over the exact threshold the first call may be pending; the other server reads the cached total.
  let i = 0;
  const total = await pollUntil(async () => (await (i++ % 2 ? a : b).call('GET', q, { secret })).body.meta.total_count as number | undefined, { what: 'the total on either server', everyMs: 100 });
  const direct = await a.running.services.es.count({ index: `${a.config.namespace}-companies`, query: { terms: { state: ['TX', 'CA', 'NY', 'FL', 'OH', 'PA', 'IL'] } } });
  assert.is(total, direct.count);
  // Paid on one, free on the other: the receipt is in Redis.
  const before = await a.running.services.credits.balance(org);
  const again = await b.call('GET', q, { secret });
  assert.is(again.body.meta.cache_hit, true);
  assert.is(await a.running.services.credits.balance(org), before);
});

t('revocation on one server is refused at once on the other; the rate limit counts both', async () => {
  const { key, secret } = await withOrg(a, {});
  assert.is((await b.call('GET', '/v1/whoami', { secret })).status, 200);
  await a.running.services.keys.revoke(await a.running.services.keys.get(key.id).then((k) => k!));
  assertError(await b.call('GET', '/v1/whoami', { secret }), 401, 'UNAUTHORIZED', { issue: 'revoked_key' });
  const other = await withOrg(a, {});
  const statuses: number[] = [];
  for (let i = 0; i < 44; i++) statuses.push((await (i % 2 ? a : b).call('GET', '/v1/whoami', { secret: other.secret })).status);
  assert.is(statuses.filter((s) => s === 200).length, 40, 'the limit of 40 a minute holds across the two servers');
  assert.is(statuses.filter((s) => s === 429).length, 4);
});

/** A free TCP port. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t('bintel serve --workers 2: two processes on one port; SIGTERM exits 0', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [`${ROOT}bin/bintel.js`, 'serve', '--workers', '2', '--port', String(port)], { env: { ...process.env, BINTEL_NAMESPACE: a.config.namespace, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const pids = new Set<number>();
    // Until both processes have answered (the second may start seconds after the first on a busy machine).
    for (const until = Date.now() + 90_000; pids.size < 2 && Date.now() < until; ) {
      // A new connection each time (the primary hands connections to the processes in turn).
      const body = await new Promise<string | null>((resolve) => {
        const req = get({ host: '127.0.0.1', port, path: '/v1/health/live', agent: false }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve(res.statusCode === 200 ? text : null));
        });
        req.on('error', () => resolve(null));
      });
      if (body) pids.add((JSON.parse(body) as { data: { pid: number } }).data.pid);
      await new Promise((r) => setTimeout(r, body ? 20 : 100));
    }
    assert.is(pids.size, 2, 'answers come from two processes');
    child.kill('SIGTERM');
    assert.is(await exited, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

t.run();
