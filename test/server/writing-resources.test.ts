/**
 * Saved writing resources through the API (real Redis): plays, CTAs and subjects (CRUD, bulk
 * plays all-or-nothing, search, soft delete), identities (schema, strong ETags, If-Match 428/412
 * with nothing applied, two concurrent writers), the per-user temperature, writing options and
 * their exclusions, and saved references in writing jobs (resolution sources, hybrid merge,
 * deleted and other-organization ids as invalid_reference).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('writing resources');
let h: Harness;
let org = '';
let secret = '';

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = secret) => h.call(method, path, { secret: key, body, headers });

const IDENTITY = {
  companyName: 'Northwind Benefits',
  versionName: 'Q4',
  valueProps: [
    { id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' },
    { id: 'vp2', feature: 'TBD' },
    { id: 'vp1', feature: 'A repeated id' },
  ],
  caseStudies: [
    { id: 'cs1', result: 'saved 14% at renewal', customer: 'Acme Tools', quote: 'They found savings our broker missed' },
    { id: 'cs2', customer: 'Globex' },
    { id: 'cs3', result: 'cut claims costs 9%', quote: 'Great partner' },
  ],
  contentAngles: [{ id: 'ca1', headline: 'Renewal season does not have to mean rising premiums' }],
  brandVoice: { tone: 'plain', avoid: ['synergy'] },
  painPoints: ['Rising premiums every renewal', '[pain point]'],
};

const KINDS = [
  { path: 'writing-plays', make: (i: number) => ({ name: `Play ${i}`, subject: 'Idea for {{company_name}}', body: `Hi {{first_name}}, play number ${i} for {{company_name}}.` }), patch: { name: 'Renamed play' } },
  { path: 'writing-ctas', make: (i: number) => ({ name: `CTA ${i}`, body: `Worth a 15-minute call, option ${i}?` }), patch: { body: 'Can I send a one-page summary?' } },
  { path: 'writing-subjects', make: (i: number) => ({ name: `Subject ${i}`, text: `Renewal idea ${i}` }), patch: { text: 'A renewal idea for your team' } },
];

t.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  const o = await withOrg(h, { milli: 1_000_000 });
  org = o.org;
  secret = o.secret;
});
t.after(() => h.close());

t('plays, CTAs and subjects: create (201 object), detail, PATCH, list with search and pages, soft delete', async () => {
  for (const k of KINDS) {
    const made: any[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call('POST', `/v1/${k.path}`, k.make(i));
      assert.is(res.status, 201, JSON.stringify(res.body));
      assert.ok(!Array.isArray(res.body.data));
      assert.is(res.headers.get('location'), `/v1/${k.path}/${res.body.data.id}`);
      made.push(res.body.data);
    }
    if (k.path === 'writing-plays') assert.is(made[0].source, 'manual');
    const one = await call('GET', `/v1/${k.path}/${made[1].id}`);
    assert.equal(one.body.data, made[1]);
    const patched = await call('PATCH', `/v1/${k.path}/${made[1].id}`, k.patch);
    assert.is(patched.status, 200);
    assert.equal(patched.body.data, { ...made[1], ...k.patch, updated_at: patched.body.data.updated_at });
    const list = await call('GET', `/v1/${k.path}?page_size=2`);
    assert.equal(list.body.data.map((r: { id: string }) => r.id), [made[2].id, made[1].id]);
    assert.equal([list.body.meta.total_count, list.body.meta.has_more], [3, true]);
    const found = await call('GET', `/v1/${k.path}?search=${encodeURIComponent(Object.values(k.make(2))[0] as string)}`);
    assert.equal(found.body.data.map((r: { id: string }) => r.id), [made[2].id]);
    const del = await call('DELETE', `/v1/${k.path}/${made[0].id}`);
    assert.equal(del.body.data, { id: made[0].id, deleted: true });
    assertError(await call('GET', `/v1/${k.path}/${made[0].id}`), 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
    assertError(await call('PATCH', `/v1/${k.path}/${made[0].id}`, k.patch), 404, 'NOT_FOUND', { field: 'id', issue: 'not_found' });
    assert.not.ok((await call('GET', `/v1/${k.path}?page_size=500`)).body.data.some((r: { id: string }) => r.id === made[0].id));
    assertError(await call('POST', `/v1/${k.path}`, { ...k.make(9), Name: 'x' }), 400, 'VALIDATION_ERROR', { field: 'Name', issue: 'unknown_field' });
    assertError(await call('PATCH', `/v1/${k.path}/${made[1].id}`, {}), 400, 'VALIDATION_ERROR');
    assertError(await call('PATCH', `/v1/${k.path}/${made[1].id}`, k.patch, { 'If-Match': '"x"' }), 400, 'VALIDATION_ERROR', { field: 'if-match', issue: 'not_supported' });
  }
});

t('bulk plays: 1-100, an array with meta.bulk, all or nothing', async () => {
  const plays = Array.from({ length: 5 }, (_, i) => KINDS[0].make(100 + i));
  const before = (await call('GET', '/v1/writing-plays')).body.meta.total_count;
  const res = await call('POST', '/v1/writing-plays', { plays });
  assert.is(res.status, 201);
  assert.ok(Array.isArray(res.body.data));
  assert.is(res.body.data.length, 5);
  assert.is(res.body.meta.bulk, true);
  const bad = await call('POST', '/v1/writing-plays', { plays: [...plays, { name: 'No body' }] });
  assertError(bad, 400, 'VALIDATION_ERROR', { field: 'plays[5].body', issue: 'missing_required' });
  assertError(await call('POST', '/v1/writing-plays', { plays: Array.from({ length: 101 }, (_, i) => KINDS[0].make(i)) }), 400, 'VALIDATION_ERROR', { field: 'plays', issue: 'too_many_items' });
  assertError(await call('POST', '/v1/writing-plays', { plays: [] }), 400, 'VALIDATION_ERROR', { field: 'plays', issue: 'too_few_items' });
  assert.is((await call('GET', '/v1/writing-plays')).body.meta.total_count, before + 5);
});

t('identities: the schema, strong ETags, 428 and 412 apply nothing, a scalar PATCH needs no If-Match', async () => {
  const schema = await call('GET', '/v1/identities/schema');
  assert.equal(schema.body.data.required, ['companyName']);
  const made = await call('POST', '/v1/identities', IDENTITY);
  assert.is(made.status, 201, JSON.stringify(made.body));
  const id = made.body.data.id as string;
  const etag = made.headers.get('etag')!;
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  const read = await call('GET', `/v1/identities/${id}`);
  assert.is(read.headers.get('etag'), etag);
  assert.is((await call('GET', `/v1/identities/${id}`, undefined, { 'If-None-Match': etag })).status, 304);
  // An array replacement without If-Match, and with a stale one: nothing applied.
  assertError(await call('PATCH', `/v1/identities/${id}`, { painPoints: ['New'] }), 428, 'PRECONDITION_REQUIRED', { field: 'if-match', issue: 'precondition_required' });
  assertError(await call('PUT', `/v1/identities/${id}`, { companyName: 'Other' }), 428, 'PRECONDITION_REQUIRED', { field: 'if-match', issue: 'precondition_required' });
  assertError(await call('PATCH', `/v1/identities/${id}`, { brandVoice: { avoid: ['leverage'] } }), 428, 'PRECONDITION_REQUIRED');
  assertError(await call('PATCH', `/v1/identities/${id}`, { painPoints: ['New'] }, { 'If-Match': '"stale"' }), 412, 'PRECONDITION_FAILED', { field: 'if-match', issue: 'precondition_failed' });
  assert.equal((await call('GET', `/v1/identities/${id}`)).body.data, made.body.data);
  const scalar = await call('PATCH', `/v1/identities/${id}`, { versionName: 'Q1' });
  assert.is(scalar.status, 200);
  assert.is.not(scalar.headers.get('etag'), etag);
  assertError(await call('PATCH', `/v1/identities/${id}`, { painPoints: ['New'] }, { 'If-Match': etag }), 412, 'PRECONDITION_FAILED');
  const arrays = await call('PATCH', `/v1/identities/${id}`, { painPoints: ['Benefits admin eats HR time'], brandVoice: { avoid: ['synergy', 'leverage'] } }, { 'If-Match': scalar.headers.get('etag')! });
  assert.is(arrays.status, 200, JSON.stringify(arrays.body));
  assert.equal(arrays.body.data.brandVoice, { tone: 'plain', avoid: ['synergy', 'leverage'] });
  assert.equal(arrays.body.data.painPoints, ['Benefits admin eats HR time']);
  assertError(await call('PATCH', `/v1/identities/${id}`, { company_name: 'x' }), 400, 'VALIDATION_ERROR', { field: 'company_name', issue: 'unknown_field' });
  assertError(await call('POST', '/v1/identities', IDENTITY, { 'If-Match': etag }), 400, 'VALIDATION_ERROR', { field: 'if-match', issue: 'not_supported' });
  const list = await call('GET', '/v1/identities');
  assert.equal(list.body.data.find((i: { id: string }) => i.id === id), { id, companyName: 'Northwind Benefits', versionName: 'Q1', created_at: made.body.data.created_at, updated_at: arrays.body.data.updated_at });
});

t('two concurrent writers: with one If-Match exactly one wins (the other 412); without If-Match no update is lost', async () => {
  const id = (await call('POST', '/v1/identities', IDENTITY)).body.data.id as string;
  const etag = (await call('GET', `/v1/identities/${id}`)).headers.get('etag')!;
  const racers = await Promise.all(['A', 'B', 'C', 'D'].map((x) => call('PATCH', `/v1/identities/${id}`, { painPoints: [`Pain ${x}`] }, { 'If-Match': etag })));
  assert.equal(racers.map((r) => r.status).sort(), [200, 412, 412, 412]);
  const winner = racers.find((r) => r.status === 200)!.body.data.painPoints;
  assert.equal((await call('GET', `/v1/identities/${id}`)).body.data.painPoints, winner);
  const fields = { versionName: 'V9', website: 'northwind.example', industry: 'Insurance', companyName: 'Northwind Benefits LLC' };
  const writes = await Promise.all(Object.entries(fields).map(([k, v]) => call('PATCH', `/v1/identities/${id}`, { [k]: v })));
  assert.ok(writes.every((w) => w.status === 200));
  const after = (await call('GET', `/v1/identities/${id}`)).body.data;
  for (const [k, v] of Object.entries(fields)) assert.is(after[k], v, k);
});

t('temperature: per user, 0-2 or null, never a user id; applies to personal plays only', async () => {
  const fresh = await call('GET', '/v1/writing/temperature');
  assert.equal(fresh.body.data, { global_temperature: 0.7, personal_play_temperature_override: null, effective_temperature: 0.7, temperature_source: 'global' });
  const set = await call('POST', '/v1/writing/temperature', { temperature: 1.2 });
  assert.equal(set.body.data, { global_temperature: 0.7, personal_play_temperature_override: 1.2, effective_temperature: 1.2, temperature_source: 'user' });
  const sameUser = await h.key({ org, user: 'u1' });
  assert.is((await call('GET', '/v1/writing/temperature', undefined, {}, sameUser.secret)).body.data.effective_temperature, 1.2);
  const otherUser = await h.key({ org, user: 'u2' });
  assert.is((await call('GET', '/v1/writing/temperature', undefined, {}, otherUser.secret)).body.data.temperature_source, 'global');
  for (const [body, field, issue] of [[{ temperature: 2.5 }, 'temperature', 'invalid_value'], [{}, 'temperature', 'missing_required'], [{ temperature: 1, user_id: 'u2' }, 'user_id', 'unknown_field'], [{ temperature: '1' }, 'temperature', 'invalid_value']] as const) {
    const res = await call('PATCH', '/v1/writing/temperature', body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.ok(res.body.error.details.some((d: { field: string }) => d.field === field), `${JSON.stringify(res.body.error.details)} ${issue}`);
  }
  const play = (await call('POST', '/v1/writing-plays', KINDS[0].make(7))).body.data.id;
  const base = { source_mode: 'inline', channel: 'email', identity: { companyName: 'Northwind' }, target: { full_name: 'Dana W' }, dry_run: true };
  const personal = await call('POST', '/v1/writing-jobs', { ...base, writing: { play_source: 'personal', personal_play_id: play } });
  assert.equal(personal.body.data.resolved_context.temperature, { effective: 1.2, source: 'user' });
  assert.equal(personal.body.data.resolved_context.play.id, play);
  const template = await call('POST', '/v1/writing-jobs', base);
  assert.equal(template.body.data.resolved_context.temperature, { effective: 0.7, source: 'global' });
  assert.equal((await call('PATCH', '/v1/writing/temperature', { temperature: null })).body.data.temperature_source, 'global');
});

t('writing options: without identity_id, IDENTITY_ID_REQUIRED names the fields; with it, the exclusions are each a warning', async () => {
  const bare = await call('GET', '/v1/writing/options');
  assert.is(bare.status, 200);
  assert.ok(bare.body.data.plays.length > 0 && bare.body.data.ctas.length > 0 && bare.body.data.subjects.length > 0);
  for (const f of ['icp', 'pain_points', 'case_studies', 'value_propositions', 'content_angles']) assert.equal(bare.body.data[f], [], f);
  assert.equal(bare.body.data.warnings.map((w: { code: string; fields: string[] }) => [w.code, w.fields]), [['IDENTITY_ID_REQUIRED', ['icp', 'pain_points', 'case_studies', 'value_propositions', 'content_angles']]]);
  const id = (await call('POST', '/v1/identities', IDENTITY)).body.data.id;
  const opts = (await call('GET', `/v1/writing/options?identity_id=${id}`)).body.data;
  assert.equal(opts.value_propositions.map((v: { id: string }) => v.id), ['vp1']);
  assert.equal(opts.case_studies.map((c: { id: string; quote?: string }) => [c.id, c.quote ?? null]), [['cs1', 'They found savings our broker missed'], ['cs3', null]]);
  assert.equal(opts.pain_points, ['Rising premiums every renewal']);
  const reasons = opts.warnings.map((w: { field: string; id: string | null; reason: string }) => `${w.field}:${w.id}:${w.reason}`).sort();
  assert.equal(reasons, ['caseStudies.quote:cs3:quote_without_customer', 'caseStudies:cs2:incomplete', 'painPoints:null:placeholder', 'valueProps:vp1:duplicate_id', 'valueProps:vp2:placeholder']);
  assertError(await call('GET', '/v1/writing/options?identity_id=idn_000000000000000000000000'), 400, 'VALIDATION_ERROR', { field: 'identity_id', issue: 'invalid_reference' });
});

t('saved references in jobs: sources, hybrid merge (objects merge, arrays replace), deleted and other-organization ids are invalid_reference', async () => {
  const id = (await call('POST', '/v1/identities', IDENTITY)).body.data.id;
  const cta = (await call('POST', '/v1/writing-ctas', { name: 'Call', body: 'Open to a short call on {{company_name}} renewals?' })).body.data.id;
  const subject = (await call('POST', '/v1/writing-subjects', { name: 'S', text: 'Your renewal, benchmarked' })).body.data.id;
  const target = { full_name: 'Dana Whitfield', company_name: 'Contoso Ltd' };
  const saved = await call('POST', '/v1/writing-jobs', { source_mode: 'saved', channel: 'email', identity_id: id, target, writing: { cta_id: cta, subject_id: subject } });
  assert.is(saved.status, 202, JSON.stringify(saved.body));
  let job = saved.body.data;
  for (let n = 1; !job.done; n = job.eventCount) job = (await call('GET', `/v1/writing-jobs/${job.id}?wait_ms=2000&last_event_count=${n}`)).body.data;
  assert.is(job.status, 'completed');
  assert.is(job.output.subject, 'Your renewal, benchmarked');
  assert.match(job.output.body, /Open to a short call on Contoso Ltd renewals\?/);
  assert.equal([job.resolved_context.cta.source, job.resolved_context.subject.source, job.resolved_context.identity.id], ['saved', 'saved', id]);
  const hybrid = await call('POST', '/v1/writing-jobs', { source_mode: 'hybrid', channel: 'email', identity_id: id, identity: { brandVoice: { avoid: ['renewal'] }, painPoints: ['Only this pain'] }, target, writing: { cta: 'Inline CTA wins?', cta_id: cta }, dry_run: true });
  const ctx = hybrid.body.data.resolved_context;
  assert.equal(ctx.identity.brandVoice, { tone: 'plain', avoid: ['renewal'] });
  assert.equal(ctx.identity.painPoints, ['Only this pain']);
  assert.equal(ctx.cta, { source: 'inline', id: null, text: 'Inline CTA wins?' });
  await call('DELETE', `/v1/writing-ctas/${cta}`);
  assertError(await call('POST', '/v1/writing-jobs', { source_mode: 'saved', channel: 'email', identity_id: id, writing: { cta_id: cta } }), 400, 'VALIDATION_ERROR', { field: 'writing.cta_id', issue: 'invalid_reference' });
  const stranger = await withOrg(h, { milli: 100_000 });
  const theirs = await call('POST', '/v1/writing-jobs', { source_mode: 'saved', channel: 'email', identity_id: id, writing: { subject_id: subject } }, {}, stranger.secret);
  assertError(theirs, 400, 'VALIDATION_ERROR', { field: 'identity_id', issue: 'invalid_reference' });
  assertError(theirs, 400, 'VALIDATION_ERROR', { field: 'writing.subject_id', issue: 'invalid_reference' });
  assertError(await call('GET', `/v1/identities/${id}`, undefined, {}, stranger.secret), 404, 'NOT_FOUND');
  assertError(await call('GET', `/v1/writing-subjects/${subject}`, undefined, {}, stranger.secret), 404, 'NOT_FOUND');
  assert.is(await h.running.services.credits.balance(stranger.org), 100_000);
});

t('test keys get 403 on every writing route', async () => {
  const test = await h.key({ org, key_type: 'test' });
  const routes: [string, string][] = [
    ['GET', '/v1/identities/schema'], ['GET', '/v1/identities'], ['POST', '/v1/identities'], ['GET', '/v1/writing/options'], ['GET', '/v1/writing/temperature'], ['POST', '/v1/writing/temperature'], ['PATCH', '/v1/writing/temperature'],
    ...KINDS.flatMap((k): [string, string][] => [['GET', `/v1/${k.path}`], ['POST', `/v1/${k.path}`]]),
  ];
  for (const [method, path] of routes) {
    assertError(await call(method, path, method === 'GET' ? undefined : {}, {}, test.secret), 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
  }
});

t.run();
