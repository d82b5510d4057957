/**
 * Writing jobs through the API (real Redis, the in-process worker, the deterministic writer):
 * the lifecycle and its events, billing (balance after = before − charged, exactly once), the
 * long poll, Idempotency-Key under concurrency, forced failure, every body rule a 400 with
 * nothing reserved, internal-only options, live keys only, jobs that never cross users or
 * organizations, and the usage report.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EM_DASH } from '../../server/writing/constraints.ts';
import { setProfile } from '../../server/writing/refs.ts';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';
import { WAIT_MS_MAX } from '../../server/routes/writing-jobs.ts';

const t = suite('writing jobs');
let h: Harness;

const IDENTITY = {
  companyName: 'Northwind Benefits',
  versionName: 'Q4',
  valueProps: [
    { id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' },
    { id: 'vp2', feature: 'a benefits portal employees actually use' },
  ],
  caseStudies: [{ id: 'cs1', result: 'saved 14% at renewal', customer: 'Acme Tools', quote: 'They found savings our broker missed' }],
  contentAngles: [{ id: 'ca1', headline: 'Renewal season does not have to mean rising premiums' }],
  brandVoice: { avoid: ['synergy', 'em dash'] },
  painPoints: ['Rising premiums every renewal'],
};
const TARGET = { full_name: 'Dana Whitfield', title: 'VP People', company_name: 'Contoso Ltd', industry: 'manufacturing', city: 'Dayton', state: 'OH', employee_count: 420 };
const SENDER = { full_name: 'Sam Reyes', title: 'Partner', company_name: 'Northwind Benefits' };
const EMAIL = { source_mode: 'inline', channel: 'email', identity: IDENTITY, target: TARGET, sender: SENDER };

const post = (secret: string, body: unknown, headers: Record<string, string> = {}) => h.call('POST', '/v1/writing-jobs', { secret, body, headers });
const get = (secret: string, path: string) => h.call('GET', path, { secret });

/** Polls the job (long polls of 2 s) until it is done. */
async function done(secret: string, id: string): Promise<any> {
  let count = 0;
  for (let i = 0; i < 30; i++) {
    const res = await get(secret, `/v1/writing-jobs/${id}?wait_ms=2000&last_event_count=${count}`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    if (res.body.data.done) return res.body.data;
    count = res.body.data.eventCount;
  }
  throw new Error(`job ${id} not done`);
}

const JOB_MEMBERS = ['billing', 'channel', 'created_at', 'done', 'error', 'eventCount', 'events', 'id', 'jobSuccess', 'kind', 'label', 'linkedin_type', 'output', 'progress', 'resolved_context', 'status', 'success', 'updated_at'];

t.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '100000' });
});
t.after(async () => {
  await h.close();
});

t('an email job: 202 queued with the reservation, events to completed, charged exactly the reservation; exact members', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const res = await post(o.secret, EMAIL);
  assert.is(res.status, 202, JSON.stringify(res.body));
  assert.equal(Object.keys(res.body.data).sort(), JOB_MEMBERS);
  assert.is(res.body.data.status, 'queued');
  assert.equal(res.body.meta.credits_reserved, 5);
  assert.is(res.body.meta.credits_charged, 0);
  assert.is(res.headers.get('location'), `/v1/writing-jobs/${res.body.data.id}`);
  assert.is(await h.running.services.credits.balance(o.org), 100_000 - 5000);
  const job = await done(o.secret, res.body.data.id);
  assert.equal(Object.keys(job).sort(), JOB_MEMBERS);
  assert.is(job.status, 'completed');
  assert.equal([job.success, job.jobSuccess, job.progress, job.error], [true, true, 100, null]);
  assert.equal(job.billing, { credits_reserved: 5, credits_charged: 5, credits_released: 0, credits_refunded: 0 });
  assert.is(job.eventCount, job.events.length);
  for (let i = 1; i < job.events.length; i++) {
    assert.ok(job.events[i].progress >= job.events[i - 1].progress && job.events[i].ts >= job.events[i - 1].ts);
  }
  const out = job.output;
  assert.is(out.channel, 'email');
  assert.not.ok(out.body.includes('\r'));
  assert.match(out.body, /Dana/);
  assert.not.ok(/synergy/i.test(out.body + out.subject) || (out.body + out.subject).includes(EM_DASH));
  assert.equal(out.resolved_context.sender, { ...SENDER, signature: null, source: 'explicit' });
  assert.equal(job.resolved_context, out.resolved_context);
  assert.equal(job.resolved_context.value_props.map((v: { id: string }) => v.id), ['vp1']);
  assert.is(await h.running.services.credits.balance(o.org), 100_000 - 5000);
});

t('LinkedIn: a connection request within 300 characters, a message; 3 credits each', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  for (const linkedin_type of ['connection_request', 'message']) {
    const res = await post(o.secret, { ...EMAIL, channel: 'linkedin', linkedin_type });
    assert.is(res.status, 202, JSON.stringify(res.body));
    assert.is(res.body.meta.credits_reserved, 3);
    const job = await done(o.secret, res.body.data.id);
    assert.is(job.status, 'completed');
    assert.is(job.output.linkedin_type, linkedin_type);
    assert.is(job.kind, `linkedin_${linkedin_type}`);
    if (linkedin_type === 'connection_request') assert.ok([...job.output.content].length <= 300);
  }
  assert.is(await h.running.services.credits.balance(o.org), 100_000 - 6000);
});

t('the long poll answers at the next event (not at wait_ms), and on time without one', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  await h.running.services.jobs.pause();
  let id = '';
  try {
    id = (await post(o.secret, EMAIL)).body.data.id;
    const t0 = Date.now();
    const idle = await get(o.secret, `/v1/writing-jobs/${id}?wait_ms=300&last_event_count=1`);
    const waited = Date.now() - t0;
    assert.is(idle.body.data.eventCount, 1);
    // At least wait_ms; the upper bound only tells "after wait_ms" from "never", far from any noise.
    assert.ok(waited >= 290 && waited < 15_000, `returned after ${waited} ms`);
    // A long poll is woken by the event, not by the end of its wait: answered before wait_ms
    // (the longest, 5 s) is over, however long the job took to start.
    const polled = Date.now();
    const poll = get(o.secret, `/v1/writing-jobs/${id}?wait_ms=${WAIT_MS_MAX}&last_event_count=1`);
    await new Promise((r) => setTimeout(r, 100));
    h.running.services.jobs.resume();
    const res = await poll;
    const received = Date.now();
    assert.ok(res.body.data.eventCount > 1);
    assert.ok(received - polled < WAIT_MS_MAX, `answered ${received - polled} ms after the poll began, ${received - res.body.data.events[1].ts} ms after the event`);
  } finally {
    h.running.services.jobs.resume();
  }
  // Already done: answers at once, whatever wait_ms.
  await done(o.secret, id);
  const t1 = Date.now();
  await get(o.secret, `/v1/writing-jobs/${id}?wait_ms=${WAIT_MS_MAX}&last_event_count=999`);
  assert.ok(Date.now() - t1 < WAIT_MS_MAX, 'not held for its wait_ms');
});

t('Idempotency-Key: concurrent identical requests make one job and one reservation; a repeat is 200 reused', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const results = await Promise.all(Array.from({ length: 6 }, () => post(o.secret, EMAIL, { 'Idempotency-Key': 'same-key-1' })));
  const ids = new Set(results.map((r) => r.body.data.id));
  assert.is(ids.size, 1);
  assert.equal(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 202]);
  for (const r of results.filter((x) => x.status === 200)) assert.equal([r.body.meta.idempotency_reused, r.body.meta.credits_charged], [true, 0]);
  const job = await done(o.secret, [...ids][0]);
  const again = await post(o.secret, EMAIL, { 'Idempotency-Key': 'same-key-1' });
  assert.equal([again.status, again.body.data.id, again.body.data.status], [200, job.id, 'completed']);
  assert.is(await h.running.services.credits.balance(o.org), 100_000 - 5000);
  const list = await get(o.secret, '/v1/writing-jobs');
  assert.is(list.body.meta.total_count, 1);
});

t('force_failure (internal token): failed, the reservation released; external keys get 403 and pay nothing', async () => {
  const o = await withOrg(h, { milli: 100_000, internal: true });
  const res = await post(o.secret, { ...EMAIL, force_failure: true });
  assert.is(res.status, 202);
  assert.is(await h.running.services.credits.balance(o.org), 95_000);
  const job = await done(o.secret, res.body.data.id);
  assert.equal([job.status, job.success, job.jobSuccess, job.output], ['failed', false, false, null]);
  assert.equal(job.billing, { credits_reserved: 5, credits_charged: 0, credits_released: 5, credits_refunded: 0 });
  assert.is(await h.running.services.credits.balance(o.org), 100_000);
  const ext = await withOrg(h, { milli: 100_000 });
  for (const opt of ['force_failure', 'include_ai_costs']) {
    assertError(await post(ext.secret, { ...EMAIL, [opt]: true }), 403, 'FORBIDDEN', { field: opt, issue: 'internal_only' });
  }
  const costs = await post(o.secret, { ...EMAIL, include_ai_costs: true });
  const withCosts = await done(o.secret, costs.body.data.id);
  assert.equal(withCosts.output.ai_costs.model, 'deterministic');
  assert.is(await h.running.services.credits.balance(ext.org), 100_000);
});

t('every body rule is a 400 naming the field, before anything is reserved', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const cases: [unknown, string, string][] = [
    [{ ...EMAIL, sourceMode: 'inline' }, 'sourceMode', 'unknown_field'],
    [{ ...EMAIL, writing: { ctaId: 'x' } }, 'writing.ctaId', 'unknown_field'],
    [{ ...EMAIL, sender: { fullName: 'Sam' } }, 'sender.fullName', 'unknown_field'],
    [{ ...EMAIL, target: { firstName: 'Dana' } }, 'target.firstName', 'unknown_field'],
    [{ ...EMAIL, identity: 'Northwind' }, 'identity', 'invalid_type'],
    [{ ...EMAIL, sender: 'Sam' }, 'sender', 'invalid_type'],
    [{ ...EMAIL, writing: [] }, 'writing', 'invalid_type'],
    [{ ...EMAIL, sender: { title: 'Partner' } }, 'sender.full_name', 'missing_required'],
    [{ ...EMAIL, source_mode: undefined }, 'source_mode', 'missing_required'],
    [{ ...EMAIL, channel: 'sms' }, 'channel', 'invalid_value'],
    [{ ...EMAIL, source_mode: 'saved', identity: undefined }, 'identity_id', 'missing_required'],
    [{ ...EMAIL, source_mode: 'hybrid', identity_id: 'idn_nope' }, 'identity_id', 'invalid_reference'],
    [{ ...EMAIL, writing: { instructions: 'x'.repeat(4001) } }, 'writing.instructions', 'too_long'],
    [{ ...EMAIL, writing: { cta_id: 'cta_other_org' } }, 'writing.cta_id', 'invalid_reference'],
    [{ ...EMAIL, writing: { value_prop_id: 'vp9' } }, 'writing.value_prop_id', 'invalid_reference'],
    [{ ...EMAIL, writing: { value_prop_id: 'vp1', value_proposition_selection: { selection: 'auto' } } }, 'writing.value_proposition_selection', 'conflicting_values'],
    [{ ...EMAIL, writing: { case_study_selection: { selection: 'specific', selected_ids: ['cs9'] } } }, 'writing.case_study_selection.selected_ids', 'invalid_reference'],
    [{ ...EMAIL, writing: { personal_play_id: 'p1' } }, 'writing.personal_play_id', 'conflicting_values'],
    [{ ...EMAIL, linkedin_type: 'message' }, 'linkedin_type', 'conflicting_values'],
  ];
  for (const [body, field, issue] of cases) {
    const res = await post(o.secret, body);
    assertError(res, 400, 'VALIDATION_ERROR', { field, issue });
    assert.is(res.body.meta.credits_charged, 0);
  }
  assertError(await post(o.secret, EMAIL, { 'Idempotency-Key': 'bad key with spaces' }), 400, 'VALIDATION_ERROR', { field: 'idempotency-key', issue: 'invalid_format' });
  assert.is(await h.running.services.credits.balance(o.org), 100_000);
  assert.is((await get(o.secret, '/v1/writing-jobs')).body.meta.total_count, 0);
  const id = (await post(o.secret, EMAIL)).body.data.id;
  for (const [q, field, issue] of [['wait_ms=5001', 'wait_ms', 'out_of_range'], ['wait_ms=1.5', 'wait_ms', 'invalid_integer'], ['wait_ms=abc', 'wait_ms', 'invalid_integer'], ['last_event_count=-1', 'last_event_count', 'invalid_integer'], ['wait=1', 'wait', 'unknown_field']]) {
    assertError(await get(o.secret, `/v1/writing-jobs/${id}?${q}`), 400, 'VALIDATION_ERROR', { field, issue });
  }
  await done(o.secret, id);
});

t('sender defaults: the saved signature, then the full name, then the local part of the email; an explicit sender is never replaced', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const s = h.running.services;
  const who = { org: o.org, user: 'u1' };
  const { sender: _s, ...noSender } = EMAIL;
  const senderOf = async (body: unknown) => (await post(o.secret, { ...(body as object), dry_run: true })).body.data.resolved_context.sender;
  await setProfile(s, who, { email: 'sam.reyes@northwind.example' });
  assert.equal(await senderOf(noSender), { full_name: 'sam.reyes', title: null, company_name: 'Northwind Benefits', signature: null, source: 'account_default' });
  await setProfile(s, who, { full_name: 'Sam Reyes' });
  assert.is((await senderOf(noSender)).full_name, 'Sam Reyes');
  await setProfile(s, who, { signature: 'Sam Reyes\nPartner, Northwind Benefits' });
  assert.equal(await senderOf(noSender), { full_name: 'Sam Reyes', title: null, company_name: 'Northwind Benefits', signature: 'Sam Reyes\nPartner, Northwind Benefits', source: 'account_default' });
  assert.equal(await senderOf({ ...noSender, sender: { name: 'Alex Kim', company: 'Kim & Co' } }), { full_name: 'Alex Kim', title: null, company_name: 'Kim & Co', signature: null, source: 'explicit' });
  const res = await post(o.secret, noSender);
  const job = await done(o.secret, res.body.data.id);
  assert.ok(job.output.body.endsWith('Sam Reyes\nPartner, Northwind Benefits'), job.output.body);
});

t('dry run: the resolved context and the estimate, no job, nothing reserved', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const res = await post(o.secret, { ...EMAIL, dry_run: true, writing: { case_study_id: 'none', content_angle_id: 'ca1' } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(Object.keys(res.body.data).sort(), ['dry_run', 'estimated_credits', 'job_created', 'prose_generated', 'resolved_context']);
  assert.equal([res.body.data.dry_run, res.body.data.job_created, res.body.data.prose_generated, res.body.data.estimated_credits], [true, false, false, 5]);
  assert.equal(res.body.data.resolved_context.case_studies, []);
  assert.equal(res.body.data.resolved_context.content_angles, [IDENTITY.contentAngles[0]]);
  assert.is(await h.running.services.credits.balance(o.org), 100_000);
  assert.is((await get(o.secret, '/v1/writing-jobs')).body.meta.total_count, 0);
  assert.equal((await get(o.secret, '/v1/usage/writing')).body.data, []);
  // The estimate is the price the same job reserves (one price for both).
  const real = await post(o.secret, { ...EMAIL, writing: { case_study_id: 'none', content_angle_id: 'ca1' } });
  assert.is(real.status, 202, JSON.stringify(real.body));
  assert.is(real.body.meta.credits_reserved, res.body.data.estimated_credits);
});

t('jobs never cross users or organizations; test keys get 403; insufficient credits is 402 with nothing reserved', async () => {
  const o = await withOrg(h, { milli: 100_000 });
  const id = (await post(o.secret, EMAIL)).body.data.id;
  await done(o.secret, id);
  const colleague = await h.key({ org: o.org, user: 'u2' });
  const stranger = await withOrg(h, { milli: 100_000 });
  for (const secret of [colleague.secret, stranger.secret]) {
    assertError(await get(secret, `/v1/writing-jobs/${id}`), 404, 'NOT_FOUND', { field: 'job_id', issue: 'not_found' });
    assert.is((await get(secret, '/v1/writing-jobs')).body.meta.total_count, 0);
  }
  const test = await h.key({ org: o.org, key_type: 'test' });
  for (const [method, path] of [['POST', '/v1/writing-jobs'], ['GET', '/v1/writing-jobs'], ['GET', `/v1/writing-jobs/${id}`], ['GET', '/v1/usage/writing'], ['GET', '/v1/usage/ai-costs']]) {
    const res = await h.call(method, path, { secret: test.secret, body: method === 'POST' ? EMAIL : undefined });
    assertError(res, 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
  }
  const poor = await withOrg(h, { milli: 4_999 });
  assertError(await post(poor.secret, EMAIL), 402, 'INSUFFICIENT_CREDITS', { field: 'credits', issue: 'insufficient_credits' });
  assert.is(await h.running.services.credits.balance(poor.org), 4_999);
  assert.is((await get(poor.secret, '/v1/writing-jobs')).body.meta.total_count, 0);
});

t('the list filters by status and channel and pages; usage groups outcomes and credits by day, channel and operation', async () => {
  const o = await withOrg(h, { milli: 100_000, internal: true });
  const made = [await post(o.secret, EMAIL), await post(o.secret, { ...EMAIL, channel: 'linkedin' }), await post(o.secret, { ...EMAIL, force_failure: true })];
  for (const m of made) await done(o.secret, m.body.data.id);
  const ids = (path: string) => get(o.secret, path).then((r) => r.body.data.map((j: { id: string }) => j.id));
  assert.equal(await ids('/v1/writing-jobs'), made.map((m) => m.body.data.id).reverse());
  assert.equal(await ids('/v1/writing-jobs?status=failed'), [made[2].body.data.id]);
  assert.equal(await ids('/v1/writing-jobs?channel=email'), [made[2].body.data.id, made[0].body.data.id]);
  assert.equal(await ids('/v1/writing-jobs?channel=email&status=completed'), [made[0].body.data.id]);
  const page = await get(o.secret, '/v1/writing-jobs?page=1&page_size=2');
  assert.equal([page.body.data.length, page.body.meta.total_count, page.body.meta.has_more], [1, 3, false]);
  assertError(await get(o.secret, '/v1/writing-jobs?status=done'), 400, 'VALIDATION_ERROR', { field: 'status', issue: 'invalid_value' });
  const usage = await get(o.secret, '/v1/usage/writing');
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(usage.body.data, [
    { day: today, channel: 'email', operation: 'generate', accepted: 2, completed: 1, failed: 1, credits_reserved: 10, credits_charged: 5, credits_released: 5 },
    { day: today, channel: 'linkedin', operation: 'generate', accepted: 1, completed: 1, failed: 0, credits_reserved: 3, credits_charged: 3, credits_released: 0 },
  ]);
  assert.is(await h.running.services.credits.balance(o.org), 100_000 - 8000);
  assertError(await get(o.secret, '/v1/usage/writing?from=2026-13-01'), 400, 'VALIDATION_ERROR', { field: 'from', issue: 'invalid_format' });
  assertError(await get(o.secret, '/v1/usage/writing?from=2024-01-01&to=2026-01-01'), 400, 'VALIDATION_ERROR', { field: 'from', issue: 'out_of_range' });
  const costs = await get(o.secret, '/v1/usage/ai-costs');
  assert.equal(costs.body.data.map((r: { model: string; requests: number }) => [r.model, r.requests]), [['deterministic', 0]]);
  const ext = await withOrg(h, { milli: 1 });
  assertError(await get(ext.secret, '/v1/usage/ai-costs'), 403, 'FORBIDDEN', { field: 'authorization', issue: 'internal_only' });
});

t.run();
