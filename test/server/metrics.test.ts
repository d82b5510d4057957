/**
 * Metrics and readiness, from outside, against a real server: `/metrics` (Prometheus text, on
 * its own port, BINTEL_METRICS_PORT) exposes the named series and counts a request by its route
 * template and status, the credits it debited and a refusal; it is not on the API port.
 * Readiness (/v1/health) is 503 naming the missing aliases of a namespace with no data, and
 * naming Elasticsearch when it does not answer (a closed port), which the ES error counter sees;
 * liveness stays 200.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../helpers/redis-server.ts';
import { startWorker, stopAll } from '../helpers/workers.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('metrics and readiness');
let h: Harness;
let data: DataFiles | undefined;

/** The metrics text of a harness's listener. */
async function scrape(x: Harness): Promise<string> {
  assert.ok(x.running.metricsUrl, 'the metrics listener runs');
  const res = await fetch(x.running.metricsUrl!);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of the sample `name` whose labels include `labels` (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) {
      total += Number(m[4]);
      found = true;
    }
  }
  return found ? total : 0;
}

const has = (text: string, name: string): boolean => new RegExp(`^# TYPE ${name} `, 'm').test(text);

t.before(async () => {
  h = await startHarness({ BINTEL_METRICS_PORT: '0' });
  data = await loadGenerated(h, { companies: 30, personnel: 10, brokerOffices: 4, brokers: 2, seed: 77 });
});
t.after(async () => {
  await stopAll();
  await h?.close();
  await data?.cleanup();
});

t('/metrics exposes the named series', async () => {
  const text = await scrape(h);
  for (const name of [
    'bintel_http_requests_total',
    'bintel_http_request_duration_seconds',
    'bintel_refusals_total',
    'bintel_es_request_duration_seconds',
    'bintel_es_errors_total',
    'bintel_redis_command_duration_seconds',
    'bintel_redis_errors_total',
    'bintel_credits_debited_milli_total',
    'bintel_credits_refunded_milli_total',
    'bintel_jobs_finished_total',
    'bintel_jobs_queue_depth',
    'bintel_index_alias_ready',
    'bintel_index_generation_timestamp_seconds',
    'bintel_index_vectors_ready',
    'bintel_index_info',
    'process_cpu_user_seconds_total',
    'nodejs_eventloop_lag_seconds',
  ]) assert.ok(has(text, name), `${name} is exposed`);
  for (const resource of ['companies', 'personnel', 'broker-offices', 'brokers']) {
    assert.is(sample(text, 'bintel_index_alias_ready', { resource }), 1, `${resource} alias ready`);
    assert.is(sample(text, 'bintel_index_vectors_ready', { resource }), 1, `${resource} graph ready`);
    const g = sample(text, 'bintel_index_generation_timestamp_seconds', { resource });
    assert.ok(Math.abs(g - Date.now() / 1000) < 3600, `${resource} generation is the load's time: ${g}`);
  }
  assert.ok(sample(text, 'bintel_jobs_queue_depth', { kind: 'export', state: 'waiting' }) === 0 || has(text, 'bintel_jobs_queue_depth'));
  assert.match(text, /bintel_jobs_queue_depth\{kind="[^"]+",state="waiting"\} \d+/);
  assert.ok(sample(text, 'bintel_es_request_duration_seconds_count') > 0, 'Elasticsearch requests timed');
  assert.ok(sample(text, 'bintel_redis_command_duration_seconds_count') > 0, 'Redis commands timed');
});

t('a request is counted by its route template and status, with the credits it debited', async () => {
  const { org, secret } = await withOrg(h, { milli: 1_000_000 });
  const ok = { method: 'GET', route: '/v1/companies', status: '200' };
  const detail = { method: 'GET', route: '/v1/companies/:id', status: '200' };
  const before = await scrape(h);
  const res = await h.call('GET', '/v1/companies?page_size=2', { secret });
  assert.is(res.status, 200);
  const one = await h.call('GET', `/v1/companies/${res.body.data[0].id}`, { secret });
  assert.is(one.status, 200);
  const after = await scrape(h);
  assert.is(sample(after, 'bintel_http_requests_total', ok) - sample(before, 'bintel_http_requests_total', ok), 1);
  assert.is(sample(after, 'bintel_http_request_duration_seconds_count', ok) - sample(before, 'bintel_http_request_duration_seconds_count', ok), 1);
  // The detail is counted under its template, never its raw path (bounded label values).
  assert.is(sample(after, 'bintel_http_requests_total', detail) - sample(before, 'bintel_http_requests_total', detail), 1);
  assert.not.match(after, new RegExp(`route="/v1/companies/${res.body.data[0].id}"`));
  const spent = 1_000_000 - (await h.running.services.credits.balance(org));
  assert.ok(spent > 0);
  assert.is(sample(after, 'bintel_credits_debited_milli_total') - sample(before, 'bintel_credits_debited_milli_total'), spent, 'debited milli-credits counted');
});

t('refusals are counted by reason; an unknown path is one route label', async () => {
  const { secret } = await withOrg(h, {});
  const before = await scrape(h);
  assertError(await h.call('GET', '/v1/companies?page_size=1', { secret }), 402, 'INSUFFICIENT_CREDITS');
  const unknown = await fetch(`${h.url}/v1/no-such-thing/${Math.random()}`);
  assert.is(unknown.status, 404);
  const after = await scrape(h);
  assert.is(sample(after, 'bintel_refusals_total', { reason: 'insufficient_credits' }) - sample(before, 'bintel_refusals_total', { reason: 'insufficient_credits' }), 1);
  assert.is(sample(after, 'bintel_http_requests_total', { route: 'unmatched', status: '404' }) - sample(before, 'bintel_http_requests_total', { route: 'unmatched', status: '404' }), 1);
});

t('the metrics are not on the API port, and off unless BINTEL_METRICS_PORT is set', async () => {
  const res = await fetch(`${h.url}/metrics`);
  assert.is(res.status, 404);
  assert.not.match(await res.text(), /bintel_http_requests_total/);
  const plain = await startHarness();
  try {
    assert.is(plain.running.metricsUrl, null);
  } finally {
    await plain.close();
  }
});

t('readiness: 200 with data loaded; 503 naming each missing alias of a namespace with no data; liveness 200', async () => {
  assert.is((await h.call('GET', '/v1/health')).status, 200);
  const empty = await startHarness({ BINTEL_NAMESPACE: `${h.config.namespace}-nodata` });
  try {
    const ready = await empty.call('GET', '/v1/health');
    assertError(ready, 503, 'SERVICE_UNAVAILABLE', { field: 'index.companies', issue: 'not_found' });
    for (const resource of ['personnel', 'broker-offices', 'brokers']) assertError(ready, 503, 'SERVICE_UNAVAILABLE', { field: `index.${resource}`, issue: 'not_found' });
    assert.is((await empty.call('GET', '/v1/health/live')).status, 200);
  } finally {
    await empty.close();
  }
});

t('readiness flips to 503 when Elasticsearch is unreachable, and the ES error counter sees it', async () => {
  const dead = await startHarness({ ES_URL: `http://127.0.0.1:${await freePort()}`, BINTEL_METRICS_PORT: '0' });
  try {
    const before = await scrape(dead);
    const ready = await dead.call('GET', '/v1/health');
    assertError(ready, 503, 'SERVICE_UNAVAILABLE', { field: 'elasticsearch', issue: 'unreachable' });
    assert.not.ok(ready.body.error.details.some((d: { field: string }) => d.field.startsWith('index.')), 'no alias named when Elasticsearch is down');
    assert.is((await dead.call('GET', '/v1/health/live')).status, 200);
    const after = await scrape(dead);
    const errs = (x: string) => sample(x, 'bintel_es_errors_total', { operation: '_cluster', kind: 'unavailable' });
    assert.ok(errs(after) - errs(before) >= 1, 'the failed health check is counted');
    assert.ok(sample(after, 'bintel_metrics_read_errors_total', { source: 'elasticsearch' }) >= 1, 'index gauges could not be read');
  } finally {
    await dead.close();
  }
});

t('bintel worker serves its metrics too (queue depth, Redis), on BINTEL_METRICS_PORT', async () => {
  const port = await freePort();
  await startWorker({ BINTEL_NAMESPACE: h.config.namespace, BINTEL_METRICS_PORT: String(port) });
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.is(res.status, 200);
  const text = await res.text();
  assert.match(text, /bintel_jobs_queue_depth\{kind="[^"]+",state="waiting"\} \d+/);
  assert.ok(has(text, 'bintel_jobs_finished_total'));
  assert.ok(sample(text, 'bintel_redis_command_duration_seconds_count') > 0, 'the worker times its Redis commands');
  assert.is((await fetch(`http://127.0.0.1:${port}/`)).status, 404, 'only /metrics');
  await stopAll();
});

t.run();
