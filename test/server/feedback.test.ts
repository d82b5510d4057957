/**
 * Bug reports and review flags: round trips, the /v1/data-flags alias and the body aliases
 * (field_key, reason), organization and user isolation, test keys refused, idempotent repeats,
 * the payload limit (413), the cap on open records per organization (429, exact under concurrent
 * calls), and the operator's CLI (`bintel reports|flags list|show|resolve`)
 * whose resolution the author then reads. Real server, Redis, Elasticsearch and CLI processes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { aliasName } from '../../core/names.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { bintel as run } from '../helpers/cli.ts';

const t = suite('feedback');
/** Open reports (and, apart, open flags) one organization may have in this suite. */
const CAP = 25;
/** Open reports (and, apart, open flags) one user may have in this suite. */
const USER_CAP = 20;
let h: Harness;
let data: DataFiles | undefined;
let org = '';
let secret = '';
let other = '';
let colleague = '';
let test = '';
let companyId = '';

/** A command run in this process (test/helpers/cli.ts), in the server's namespace. */
const bintel = (...args: string[]) => run(args, { BINTEL_NAMESPACE: h.config.namespace });

t.before(async () => {
  h = await startHarness({ BINTEL_REPORT_MAX_BYTES: '2048', BINTEL_FEEDBACK_MAX_OPEN: String(CAP), BINTEL_FEEDBACK_MAX_OPEN_PER_USER: String(USER_CAP) });
  data = await loadGenerated(h, { companies: 40, personnel: 40, brokerOffices: 10, brokers: 4, seed: 31 });
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  org = o.org;
  secret = o.secret;
  colleague = (await h.key({ org, user: 'u2' })).secret;
  other = (await withOrg(h, { milli: 1_000_000 })).secret;
  test = (await h.key({ org, key_type: 'test' })).secret;
  const res = await h.running.services.es.search({ index: aliasName(h.config.namespace, 'companies'), size: 1, sort: [{ id: 'asc' }] });
  companyId = String(res.hits.hits[0]._id);
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

const report = { endpoint: 'GET /v1/companies', request_id: 'req_123', message: 'page 3 repeats a row of page 2', payload: { query: 'states=TX', rows: [1, 2] } };

t('reports: filed (201, Location, 0 credits), read back by id and in the paged list', async () => {
  const before = await h.running.services.credits.balance(org);
  const res = await h.call('POST', '/v1/reports', { secret, body: report });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const r = res.body.data;
  assert.match(r.id, /^rpt_[0-9a-f]{24}$/);
  assert.is(res.headers.get('location'), `/v1/reports/${r.id}`);
  assert.is(r.status, 'open');
  assert.is(r.message, report.message);
  assert.equal(r.payload, report.payload);
  assert.is(r.resolution_note, null);
  assert.is(res.body.meta.credits_charged, 0);
  const got = await h.call('GET', `/v1/reports/${r.id}`, { secret });
  assert.is(got.status, 200);
  assert.equal(got.body.data, r);
  const list = await h.call('GET', '/v1/reports?page_size=10', { secret });
  assert.is(list.status, 200);
  assert.ok(list.body.data.some((x: { id: string }) => x.id === r.id));
  assert.is(list.body.meta.total_count, list.body.data.length);
  assert.is(await h.running.services.credits.balance(org), before, 'reports cost nothing');
});

t('reports: an idempotent repeat files once; the same key with another body is 409', async () => {
  const headers = { 'Idempotency-Key': `rep-${Date.now()}` };
  const first = await h.call('POST', '/v1/reports', { secret, body: { ...report, message: 'once' }, headers });
  assert.is(first.status, 201);
  const again = await h.call('POST', '/v1/reports', { secret, body: { ...report, message: 'once' }, headers });
  assert.is(again.status, 200);
  assert.is(again.body.data.id, first.body.data.id);
  assert.is(again.body.meta.idempotency_reused, true);
  const list = await h.call('GET', '/v1/reports?page_size=100', { secret });
  assert.is(list.body.data.filter((x: { message: string }) => x.message === 'once').length, 1, 'filed once');
  assertError(await h.call('POST', '/v1/reports', { secret, body: { ...report, message: 'another' }, headers }), 409, 'CONFLICT', { field: 'idempotency-key', issue: 'conflicting_values' });
});

t('reports: bad input names the field; an oversize payload is 413; test keys are 403', async () => {
  assertError(await h.call('POST', '/v1/reports', { secret, body: { endpoint: 'x' } }), 400, 'VALIDATION_ERROR', { field: 'message', issue: 'missing_required' });
  assertError(await h.call('POST', '/v1/reports', { secret, body: { ...report, severity: 'high' } }), 400, 'VALIDATION_ERROR', { field: 'severity', issue: 'unknown_field' });
  assertError(await h.call('POST', '/v1/reports', { secret, body: { ...report, message: '  ' } }), 400, 'VALIDATION_ERROR', { field: 'message', issue: 'empty' });
  assertError(await h.call('POST', '/v1/reports', { secret, body: { ...report, payload: { blob: 'x'.repeat(3000) } } }), 413, 'PAYLOAD_TOO_LARGE', { field: 'payload', issue: 'too_large' });
  assertError(await h.call('POST', '/v1/reports', { secret: test, body: report }), 403, 'FORBIDDEN', { issue: 'test_key_not_allowed' });
  assertError(await h.call('GET', '/v1/reports', { secret: test }), 403, 'FORBIDDEN', { issue: 'test_key_not_allowed' });
});

t('flags: both paths and both body aliases; the entity and the field must exist; one store', async () => {
  const a = await h.call('POST', '/v1/review-flags', { secret, body: { entity_type: 'companies', entity_id: companyId, field: 'website', issue: 'site moved', suggested_value: 'https://new.example.com' } });
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.match(a.body.data.id, /^flg_[0-9a-f]{24}$/);
  const b = await h.call('POST', '/v1/data-flags', { secret, body: { entity_type: 'companies', entity_id: companyId, field_key: 'city', reason: 'wrong city' } });
  assert.is(b.status, 201, JSON.stringify(b.body));
  assert.is(b.body.data.field, 'city');
  assert.is(b.body.data.issue, 'wrong city');
  assert.is(b.body.data.suggested_value, null);
  // One store under two names.
  assert.equal((await h.call('GET', `/v1/data-flags/${a.body.data.id}`, { secret })).body.data, a.body.data);
  assert.equal((await h.call('GET', `/v1/review-flags/${b.body.data.id}`, { secret })).body.data, b.body.data);
  assertError(await h.call('POST', '/v1/review-flags', { secret, body: { entity_type: 'companies', entity_id: 'no-such-company', field: 'city', issue: 'x' } }), 400, 'VALIDATION_ERROR', { field: 'entity_id', issue: 'invalid_reference' });
  assertError(await h.call('POST', '/v1/review-flags', { secret, body: { entity_type: 'companies', entity_id: companyId, field: 'shoe_size', issue: 'x' } }), 400, 'VALIDATION_ERROR', { field: 'field', issue: 'invalid_value' });
  assertError(await h.call('POST', '/v1/data-flags', { secret, body: { entity_type: 'companies', entity_id: companyId, field_key: 'shoe_size', issue: 'x' } }), 400, 'VALIDATION_ERROR', { field: 'field_key', issue: 'invalid_value' });
  assertError(await h.call('POST', '/v1/review-flags', { secret, body: { entity_type: 'companies', entity_id: companyId, field: 'city', field_key: 'state', issue: 'x' } }), 400, 'VALIDATION_ERROR', { field: 'field_key', issue: 'conflicting_values' });
  assertError(await h.call('POST', '/v1/review-flags', { secret, body: { entity_type: 'planets', entity_id: companyId, field: 'city', issue: 'x' } }), 400, 'VALIDATION_ERROR', { field: 'entity_type', issue: 'invalid_value' });
  assertError(await h.call('POST', '/v1/review-flags', { secret: test, body: { entity_type: 'companies', entity_id: companyId, field: 'city', issue: 'x' } }), 403, 'FORBIDDEN', { issue: 'test_key_not_allowed' });
});

t('isolation: another organization and another user of the same organization see nothing', async () => {
  const mine = await h.call('POST', '/v1/reports', { secret, body: { ...report, message: 'mine' } });
  const id = mine.body.data.id;
  assertError(await h.call('GET', `/v1/reports/${id}`, { secret: other }), 404, 'NOT_FOUND');
  assertError(await h.call('GET', `/v1/reports/${id}`, { secret: colleague }), 404, 'NOT_FOUND');
  for (const s of [other, colleague]) {
    const list = await h.call('GET', '/v1/reports?page_size=100', { secret: s });
    assert.is(list.status, 200);
    assert.ok(!list.body.data.some((x: { id: string }) => x.id === id));
  }
});

t('scope: reports and flags need feedback:read / feedback:write, which a data-only child key or a restricted key lacks: 403 missing_scope, nothing filed or shown', async () => {
  const mine = await h.call('POST', '/v1/reports', { secret, body: { ...report, message: 'the root files it' } });
  assert.is(mine.status, 201, JSON.stringify(mine.body));
  const made = await h.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'] } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const child = made.body.data.secret as string;
  const restricted = (await h.key({ org, scopes: ['read:companies'] })).secret;
  const flag = { entity_type: 'companies', entity_id: companyId, field: 'city', issue: 'scoped' };
  for (const [who, s] of [['child', child], ['restricted root', restricted]] as const) {
    assertError(await h.call('GET', '/v1/reports?page_size=100', { secret: s }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
    assertError(await h.call('GET', `/v1/reports/${mine.body.data.id}`, { secret: s }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
    assertError(await h.call('GET', '/v1/review-flags', { secret: s }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
    assertError(await h.call('POST', '/v1/reports', { secret: s, body: { ...report, message: who } }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
    assertError(await h.call('POST', '/v1/data-flags', { secret: s, body: flag }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
  }
  // feedback:write files; reading back needs feedback:read.
  const writeOnly = (await h.key({ org, scopes: ['read:companies', 'feedback:write'] })).secret;
  assert.is((await h.call('POST', '/v1/reports', { secret: writeOnly, body: { ...report, message: 'write only' } })).status, 201);
  assertError(await h.call('GET', '/v1/reports', { secret: writeOnly }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
  const listed = await h.call('GET', '/v1/reports?page_size=100', { secret });
  assert.not.ok(listed.body.data.some((r: { message: string }) => r.message === 'child' || r.message === 'restricted root'), 'nothing was filed');
});

t('cap per user (property under concurrency): of USER_CAP+N concurrent filings by one user exactly USER_CAP succeed, per kind; 429 names the limit and the count; another user of the organization still files', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  const mate = (await h.key({ org: o.org, user: 'u2' })).secret;
  const flag = (i: number) => ({ entity_type: 'companies', entity_id: companyId, field: 'city', issue: `user flag ${i}` });
  const calls = [
    ...Array.from({ length: USER_CAP + 4 }, (_, i) => ['/v1/reports', { ...report, message: `mine ${i}` }] as const),
    ...Array.from({ length: USER_CAP + 3 }, (_, i) => ['/v1/review-flags', flag(i)] as const),
  ];
  const results = await Promise.all(calls.map(([path, body]) => h.call('POST', path, { secret: o.secret, body })));
  for (const [path, field] of [['/v1/reports', 'reports'], ['/v1/review-flags', 'review-flags']] as const) {
    const of = results.filter((_, i) => calls[i][0] === path);
    assert.is(of.filter((r) => r.status === 201).length, USER_CAP, `${path}: exactly the user's cap`);
    for (const r of of.filter((x) => x.status !== 201)) {
      assertError(r, 429, 'QUOTA_EXCEEDED', { field, issue: 'quota_exceeded' });
      assert.equal(r.body.error.details[0].expected, { limit: USER_CAP, current: USER_CAP, per: 'user' });
    }
    const stored = await h.call('GET', `${path}?page_size=100&status=open`, { secret: o.secret });
    assert.is(stored.body.meta.total_count, USER_CAP);
  }
  assert.is((await h.call('POST', '/v1/reports', { secret: mate, body: report })).status, 201, 'the organization is below its cap');
});

t('cap (property under concurrency): of cap+N concurrent filings exactly cap succeed, per kind and organization; 429 names the cap; a repeat still answers; a resolve frees a place', async () => {
  const o = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000 });
  const mate = (await h.key({ org: o.org, user: 'u2' })).secret;
  const flag = (i: number) => ({ entity_type: 'companies', entity_id: companyId, field: 'city', issue: `flag ${i}` });
  // One filed first with an Idempotency-Key: it counts, and its repeat at the cap still answers it.
  const headers = { 'Idempotency-Key': `cap-${Date.now()}` };
  const keyed = await h.call('POST', '/v1/reports', { secret: o.secret, body: { ...report, message: 'keyed' }, headers });
  assert.is(keyed.status, 201);
  // Two users of the organization at once, reports and flags interleaved: the cap is the organization's, per kind.
  const calls = [
    ...Array.from({ length: CAP + 11 }, (_, i) => ['/v1/reports', { ...report, message: `r${i}` }, i % 2 ? o.secret : mate] as const),
    ...Array.from({ length: CAP + 6 }, (_, i) => [i % 3 ? '/v1/review-flags' : '/v1/data-flags', flag(i), i % 2 ? mate : o.secret] as const),
  ];
  const results = await Promise.all(calls.map(([path, body, who]) => h.call('POST', path, { secret: who, body })));
  const reports = results.filter((_, i) => calls[i][0] === '/v1/reports');
  const flags = results.filter((_, i) => calls[i][0] !== '/v1/reports');
  assert.is(reports.filter((r) => r.status === 201).length, CAP - 1, 'reports filed: the cap, the keyed one included');
  assert.is(flags.filter((r) => r.status === 201).length, CAP, 'flags filed: the cap');
  for (const [rejected, field, what] of [[reports, 'reports', 'open reports'], [flags, 'review-flags', 'open review flags']] as const) {
    for (const r of rejected.filter((x) => x.status !== 201)) {
      assertError(r, 429, 'QUOTA_EXCEEDED', { field, issue: 'quota_exceeded' });
      const detail = r.body.error.details[0];
      assert.is(detail.expected, `at most ${CAP} ${what} per organization`);
    }
  }
  // What is stored agrees: the two users' lists hold exactly the cap.
  const stored = async (path: string) => {
    let n = 0;
    for (const who of [o.secret, mate]) n += (await h.call('GET', `${path}?page_size=100&status=open`, { secret: who })).body.meta.total_count;
    return n;
  };
  assert.is(await stored('/v1/reports'), CAP);
  assert.is(await stored('/v1/review-flags'), CAP);
  // At the cap: a repeat answers the record it filed; a new one is 429; another organization is not held back.
  const again = await h.call('POST', '/v1/reports', { secret: o.secret, body: { ...report, message: 'keyed' }, headers });
  assert.is(again.status, 200);
  assert.is(again.body.data.id, keyed.body.data.id);
  assertError(await h.call('POST', '/v1/reports', { secret: mate, body: report }), 429, 'QUOTA_EXCEEDED', { field: 'reports' });
  assert.is((await h.call('POST', '/v1/reports', { secret: other, body: report })).status, 201);
  // A resolved record no longer counts: one place, taken once.
  const resolved = await h.running.services.feedback.resolve('report', keyed.body.data.id, 'ops', 'fixed');
  assert.is(typeof resolved, 'object');
  const freed = await Promise.all([0, 1, 2].map((i) => h.call('POST', '/v1/reports', { secret: mate, body: { ...report, message: `after ${i}` } })));
  assert.equal(freed.map((r) => r.status).sort(), [201, 429, 429]);
});

t('CLI: the operator lists, shows and resolves; the author reads the resolution; a second resolve fails', async () => {
  const filed = await h.call('POST', '/v1/review-flags', { secret, body: { entity_type: 'companies', entity_id: companyId, field: 'state', issue: 'moved to TX', suggested_value: 'TX' } });
  const id = filed.body.data.id;
  const list = await bintel('flags', 'list', '--status', 'open', '--org', org, '--json');
  assert.is(list.code, 0, list.err);
  const rows = JSON.parse(list.out);
  assert.ok(rows.some((r: { id: string }) => r.id === id));
  for (const r of rows) assert.is(r.status, 'open');
  const show = await bintel('flags', 'show', id);
  assert.is(show.code, 0, show.err);
  assert.match(show.out, `entity_id: ${companyId}`);
  const resolved = await bintel('flags', 'resolve', id, '--note', 'fixed in the next load', '--by', 'ops-anna', '--json');
  assert.is(resolved.code, 0, resolved.err);
  assert.is(JSON.parse(resolved.out).status, 'resolved');
  const seen = await h.call('GET', `/v1/review-flags/${id}`, { secret });
  assert.is(seen.body.data.status, 'resolved');
  assert.is(seen.body.data.resolution_note, 'fixed in the next load');
  assert.is(seen.body.data.resolved_by, 'ops-anna');
  assert.ok(Date.parse(seen.body.data.resolved_at) > 0);
  const twice = await bintel('flags', 'resolve', id, '--note', 'again');
  assert.is(twice.code, 1);
  assert.match(twice.err, 'already resolved');
  const missing = await bintel('reports', 'show', 'rpt_000000000000000000000000');
  assert.is(missing.code, 1);
  const open = await h.call('GET', '/v1/review-flags?status=resolved', { secret });
  assert.ok(open.body.data.every((x: { status: string }) => x.status === 'resolved'));
  assert.ok(open.body.data.some((x: { id: string }) => x.id === id));
  const reports = await bintel('reports', 'list', '--org', org);
  assert.is(reports.code, 0, reports.err);
  assert.match(reports.out, 'GET /v1/companies');
});

t.run();
