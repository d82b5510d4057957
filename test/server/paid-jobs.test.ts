/**
 * The job layer (server/jobs/) under races and faults, against real Redis, Elasticsearch and
 * worker processes: one Idempotency-Key sent many times at once, a script that fails after the
 * debit, a process killed between the debit and the enqueue (the sweeper, twice at once), a
 * stale worker's write, and the active-export cap under 30 concurrent calls. Every check is a
 * property of balances, ledgers and records, not of timing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServices, type Services } from '../../server/context.ts';
import { sweep } from '../../server/jobs/sweeper.ts';
import { advance, loadRecord, StaleJobError } from '../../server/jobs/store.ts';
import { JOB_KINDS } from '../../server/serve.ts';
import { eventPatch, writingJobKind } from '../../server/jobs/kinds/writing.ts';
import { exportJobKind } from '../../server/jobs/kinds/export.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('paid jobs');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let h: Harness;
let data: DataFiles;
const RESERVE = 5000; // an email job, milli-credits
const STATES = 'TX,CA,NY,FL,OH,PA,IL,GA,NC,MI';

const EMAIL = { source_mode: 'inline', channel: 'email', identity: { companyName: 'Northwind Benefits' }, target: { full_name: 'Dana Whitfield', company_name: 'Contoso Ltd' }, sender: { full_name: 'Sam Reyes' } };
const postJob = (secret: string, body: unknown, key?: string) => h.call('POST', '/v1/writing-jobs', { secret, body, headers: key ? { 'Idempotency-Key': key } : {} });
const s = (): Services => h.running.services;
const ledger = (org: string) => s().redis.hgetall(s().rk.ledger(org));
const balance = (org: string) => s().credits.balance(org);

t.before(async () => {
  // No workers here: accepted jobs stay queued unless a test runs them.
  h = await startHarness({ BINTEL_WORKER_IN_PROCESS: '0', BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_EXPORT_MAX_ACTIVE: '5', BINTEL_CACHE_TTL_S: '0' });
  data = await loadGenerated(h, { companies: 300, personnel: 0, brokerOffices: 10, brokers: 4, seed: 77 });
});
t.after(async () => {
  await h.close();
  await data.cleanup();
});

t('one Idempotency-Key sent 20 times at once with one body: one job, one reservation; the others the same job with 200', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const all = await Promise.all(Array.from({ length: 20 }, () => postJob(o.secret, EMAIL, 'same-key-1')));
  const ids = new Set(all.map((r) => r.body.data?.id));
  assert.is(ids.size, 1, JSON.stringify(all.map((r) => [r.status, r.body.error?.code])));
  assert.is(all.filter((r) => r.status === 202).length, 1);
  for (const r of all.filter((x) => x.status !== 202)) {
    assert.is(r.status, 200);
    assert.is(r.body.meta.idempotency_reused, true);
    assert.is(r.body.meta.credits_charged, 0);
  }
  assert.is(await balance(o.org), 100_000 - RESERVE, 'reserved once');
  assert.is(Object.keys(await ledger(o.org)).length, 1, 'one ledger entry');
});

t('the same key with two bodies at once: one job; every call with the other body is 409 conflicting_values, nothing reserved for it', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const other = { ...EMAIL, target: { full_name: 'Lee Park', company_name: 'Fabrikam' } };
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => postJob(o.secret, i % 2 ? other : EMAIL, 'same-key-2')));
  const won = all.filter((r) => r.status === 202 || r.status === 200);
  assert.is(new Set(won.map((r) => r.body.data.id)).size, 1);
  const winnerTarget = won[0].body.data.id;
  const lost = all.filter((r) => r.status === 409);
  assert.is(won.length + lost.length, 20, JSON.stringify(all.map((r) => r.status)));
  assert.is(lost.length, 10, 'exactly the calls with the other body');
  for (const r of lost) assertError(r, 409, 'CONFLICT', { field: 'idempotency-key', issue: 'conflicting_values' });
  assert.ok(winnerTarget);
  assert.is(await balance(o.org), 100_000 - RESERVE);
  // Another key of the same user, same key and body: never handed a job it did not start (409).
  const sameUser = await withOrg(h, { org: o.org });
  assertError(await postJob(sameUser.secret, EMAIL, 'same-key-2'), 409, 'CONFLICT', { field: 'idempotency-key', issue: 'conflicting_values' });
  // Another user's claims are their own.
  const otherUser = await withOrg(h, { org: o.org, user: 'u2' });
  assert.is((await postJob(otherUser.secret, EMAIL, 'same-key-2')).status, 202);
});

t('a script that fails after the debit: balance restored, no ledger entry, and the key free again', async () => {
  const o = await withOrg(h, { milli: 100_000, user: 'wrongtype' });
  // The user's status index holding another type makes the accept script fail after its debit.
  const index = s().rk.writingJobs(o.org, 'wrongtype', 'status:queued');
  await s().redis.set(index, 'not a sorted set');
  const res = await postJob(o.secret, EMAIL, 'retry-me');
  assert.ok(res.status >= 500, `${res.status} ${JSON.stringify(res.body)}`);
  assert.is(res.body.meta.credits_charged, 0);
  assert.is(await balance(o.org), 100_000, 'the debit was given back');
  assert.equal(await ledger(o.org), {}, 'the ledger entry went with it');
  await s().redis.del(index);
  const again = await postJob(o.secret, EMAIL, 'retry-me');
  assert.is(again.status, 202, `the key is free: ${JSON.stringify(again.body)}`);
  assert.is(await balance(o.org), 100_000 - RESERVE);
});

t('a process killed between the debit and the enqueue: two sweepers at once release the reservation exactly once', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const proc = spawn(process.execPath, [join(ROOT, 'bin/run-ts.js'), join(ROOT, 'test/helpers/accept-then-die.ts'), o.key.id, JSON.stringify(EMAIL)], { env: { ...process.env, BINTEL_NAMESPACE: h.config.namespace }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const signal = await new Promise<string | null>((r) => proc.once('exit', (_c, sig) => r(sig)));
  assert.is(signal, 'SIGKILL', `${out} ${err}`);
  assert.match(out, /reserved/);
  assert.is(await balance(o.org), 100_000 - RESERVE, 'the dead process had reserved');
  const [entry] = Object.values(await ledger(o.org)).map((j) => JSON.parse(j));
  assert.is(entry.milli, RESERVE);
  // Not old enough yet: nothing released.
  assert.equal((await sweep(s(), JOB_KINDS, 3600)).filter((x) => x.reservation.org === o.org), []);
  const second = createServices(h.config);
  try {
    const [a, b] = await Promise.all([sweep(s(), JOB_KINDS, 0), sweep(second, JOB_KINDS, 0)]);
    const mine = [...a, ...b].filter((x) => x.reservation.org === o.org);
    assert.is(mine.filter((x) => x.released).length, 1, 'released once across both sweepers');
  } finally {
    await second.close();
  }
  assert.is(await balance(o.org), 100_000, 'the reservation is back');
  assert.equal(await ledger(o.org), {});
  const rec = await loadRecord(s(), writingJobKind, o.org, entry.id);
  assert.is(rec?.status, 'failed');
  assert.is(rec?.billing.credits_released, RESERVE / 1000);
  // A later sweep finds nothing more to give back.
  await sweep(s(), JOB_KINDS, 0);
  assert.is(await balance(o.org), 100_000);
});

t('a stale worker (its lease taken over) cannot overwrite the record: it stays completed, charged once', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const res = await postJob(o.secret, EMAIL);
  assert.is(res.status, 202);
  const id = res.body.data.id as string;
  // Worker A takes the job, then stalls.
  const read = (await loadRecord(s(), writingJobKind, o.org, id))!;
  const stale = await advance(s(), writingJobKind, read, { status: 'running', ...eventPatch(read, 10, 'Resolving context') });
  // Worker B is given the job and runs it to the end.
  await writingJobKind.run(s(), { id, org: o.org }, { number: 2, final: true });
  const done = (await loadRecord(s(), writingJobKind, o.org, id))!;
  assert.is(done.status, 'completed');
  // A wakes up and saves its copy.
  try {
    await advance(s(), writingJobKind, stale, eventPatch(stale, 40, 'Writing email'));
    assert.unreachable('the stale write was applied');
  } catch (err) {
    assert.instance(err, StaleJobError);
  }
  const after = (await loadRecord(s(), writingJobKind, o.org, id))!;
  assert.is(after.status, 'completed');
  assert.is(after.version, done.version, 'nothing was written');
  // A's own failure handling releases nothing: the settlement already happened.
  await writingJobKind.failed(s(), { id, org: o.org }, 'stale worker gave up');
  assert.is((await loadRecord(s(), writingJobKind, o.org, id))!.status, 'completed');
  assert.is(await balance(o.org), 100_000 - RESERVE, 'charged once');
  assert.equal(await ledger(o.org), {}, 'settled: off the ledger');
});

t('30 concurrent POST /v1/exports for one organization: at most BINTEL_EXPORT_MAX_ACTIVE accepted, the others 429 with nothing reserved', async () => {
  const o = await withOrg(h, { milli: 100_000_000 });
  const before = await balance(o.org);
  const all = await Promise.all(Array.from({ length: 30 }, (_, i) => h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: 10 + i, states: STATES } })));
  const accepted = all.filter((r) => r.status === 202);
  assert.is(accepted.length, 5, JSON.stringify(all.map((r) => r.status)));
  for (const r of all.filter((x) => x.status !== 202)) assertError(r, 429, 'RATE_LIMITED', { field: 'exports', issue: 'rate_limited' });
  const reserved = accepted.reduce((n, r) => n + Math.round(r.body.meta.credits_reserved * 1000), 0);
  for (const r of accepted) assert.is(r.body.meta.credits_charged, 0, 'charged at settlement, reserved now');
  assert.is(await balance(o.org), before - reserved);
  assert.is(Object.keys(await ledger(o.org)).length, 5);
  // A job that finishes frees its place.
  const first = accepted[0].body.data.id as string;
  const job = (await loadRecord(s(), exportJobKind, o.org, first))!;
  await advance(s(), exportJobKind, job, { status: 'failed', error: 'test' });
  assert.is((await h.call('POST', '/v1/exports', { secret: o.secret, body: { resource: 'companies', max_rows: 5, states: STATES } })).status, 202);
});

t.run();
