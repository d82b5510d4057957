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

t('ownership: plays, CTAs and subjects are personal (another user of the organization: 404, not listed, not in options, invalid_reference in jobs); identities are read by the organization and changed only by the user who saved them (403)', async () => {
  const mate = (await h.key({ org, user: 'u2' })).secret;
  const mine: Record<string, string> = {};
  for (const k of KINDS) mine[k.path] = (await call('POST', `/v1/${k.path}`, k.make(40))).body.data.id;
  for (const k of KINDS) {
    const id = mine[k.path];
    const listed = await call('GET', `/v1/${k.path}?page_size=100`, undefined, {}, mate);
    assert.is(listed.status, 200);
    assert.not.ok(listed.body.data.some((r: { id: string }) => r.id === id), `${k.path}: another user does not list it`);
    assertError(await call('GET', `/v1/${k.path}/${id}`, undefined, {}, mate), 404, 'NOT_FOUND');
    assertError(await call('PATCH', `/v1/${k.path}/${id}`, k.patch, {}, mate), 404, 'NOT_FOUND');
    assertError(await call('DELETE', `/v1/${k.path}/${id}`, undefined, {}, mate), 404, 'NOT_FOUND');
    assert.is((await call('GET', `/v1/${k.path}/${id}`)).body.data.name, k.make(40).name, `${k.path}: unchanged for its user`);
  }
  const opts = (await call('GET', '/v1/writing/options', undefined, {}, mate)).body.data;
  assert.not.ok(opts.plays.some((p: { id: string }) => p.id === mine['writing-plays']), 'options list only the caller\'s plays');
  const base = { source_mode: 'inline', channel: 'email', identity: { companyName: 'Northwind' }, target: { full_name: 'Dana W' }, dry_run: true };
  const theirs = await call('POST', '/v1/writing-jobs', { ...base, writing: { play_source: 'personal', personal_play_id: mine['writing-plays'], cta_id: mine['writing-ctas'], subject_id: mine['writing-subjects'] } }, {}, mate);
  assertError(theirs, 400, 'VALIDATION_ERROR', { field: 'writing.personal_play_id', issue: 'invalid_reference' });
  assertError(theirs, 400, 'VALIDATION_ERROR', { field: 'writing.cta_id', issue: 'invalid_reference' });
  // Identities: the organization reads them; only their user changes or deletes them.
  const made = await call('POST', '/v1/identities', IDENTITY);
  const idn = made.body.data.id;
  const etag = made.headers.get('etag')!;
  const read = await call('GET', `/v1/identities/${idn}`, undefined, {}, mate);
  assert.is(read.status, 200);
  assert.ok((await call('GET', '/v1/identities?page_size=100', undefined, {}, mate)).body.data.some((i: { id: string }) => i.id === idn));
  assertError(await call('PATCH', `/v1/identities/${idn}`, { versionName: 'theirs' }, {}, mate), 403, 'FORBIDDEN', { field: 'id', issue: 'forbidden' });
  assertError(await call('PUT', `/v1/identities/${idn}`, IDENTITY, { 'If-Match': etag }, mate), 403, 'FORBIDDEN', { field: 'id', issue: 'forbidden' });
  assertError(await call('DELETE', `/v1/identities/${idn}`, undefined, {}, mate), 403, 'FORBIDDEN', { field: 'id', issue: 'forbidden' });
  const after = await call('GET', `/v1/identities/${idn}`);
  assert.is(after.body.data.versionName, 'Q4', 'nothing applied');
  assert.is(after.headers.get('etag'), etag);
  const saved = await call('POST', '/v1/writing-jobs', { source_mode: 'saved', channel: 'email', identity_id: idn, target: { full_name: 'Dana W' }, dry_run: true }, {}, mate);
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  assert.is((await call('PATCH', `/v1/identities/${idn}`, { versionName: 'Q5' })).status, 200, 'its user changes it');
});

t('caps: records per user and per organization, each kind apart (429 QUOTA_EXCEEDED with limit and count, nothing written; concurrent creates never pass a cap); an identity past BINTEL_IDENTITY_MAX_BYTES is 413 on create and change', async () => {
  const capped = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '100000', BINTEL_WRITING_MAX_PER_USER: '3', BINTEL_WRITING_MAX_PER_ORG: '5', BINTEL_IDENTITIES_MAX_PER_USER: '1', BINTEL_IDENTITIES_MAX_PER_ORG: '2', BINTEL_IDENTITY_MAX_BYTES: '1500' });
  try {
    const o = await withOrg(capped, {});
    const u2 = (await capped.key({ org: o.org, user: 'u2' })).secret;
    const u3 = (await capped.key({ org: o.org, user: 'u3' })).secret;
    const c = (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) => capped.call(method, path, { secret: key, body, headers });
    const quota = (res: { status: number; body: any; headers: Headers }, field: string, limit: number, current: number, per: string) => {
      assertError(res, 429, 'QUOTA_EXCEEDED', { field, issue: 'quota_exceeded' });
      assert.equal(res.body.error.details[0].expected, { limit, current, per });
    };
    const play = KINDS[0].make;
    const count = async (key: string, path = 'writing-plays') => (await c('GET', `/v1/${path}`, key)).body.meta.total_count as number;
    quota(await c('POST', '/v1/writing-plays', o.secret, { plays: [play(1), play(2), play(3), play(4)] }), 'plays', 3, 0, 'user');
    assert.is(await count(o.secret), 0, 'a refused bulk writes nothing');
    for (let i = 0; i < 3; i++) assert.is((await c('POST', '/v1/writing-plays', o.secret, play(i))).status, 201);
    quota(await c('POST', '/v1/writing-plays', o.secret, play(9)), 'writing-plays', 3, 3, 'user');
    // Another kind has its own count.
    assert.is((await c('POST', '/v1/writing-ctas', o.secret, KINDS[1].make(1))).status, 201);
    for (let i = 0; i < 2; i++) assert.is((await c('POST', '/v1/writing-plays', u2, play(i))).status, 201);
    quota(await c('POST', '/v1/writing-plays', u3, play(9)), 'writing-plays', 5, 5, 'organization');
    // A delete frees a place, taken once.
    const first = (await c('GET', '/v1/writing-plays', o.secret)).body.data[0].id;
    assert.is((await c('DELETE', `/v1/writing-plays/${first}`, o.secret)).status, 200);
    const race = await Promise.all([u2, u3, u2, u3].map((k, i) => c('POST', '/v1/writing-plays', k, play(20 + i))));
    assert.is(race.filter((r) => r.status === 201).length, 1, JSON.stringify(race.map((r) => r.status)));
    assert.is((await count(o.secret)) + (await count(u2)) + (await count(u3)), 5);
    // Property: from empty, concurrent single and bulk creates by three users never pass a cap, and what is stored is what was answered 201.
    const o2 = await withOrg(capped, { user: 'a' });
    const users = [o2.secret, (await capped.key({ org: o2.org, user: 'b' })).secret, (await capped.key({ org: o2.org, user: 'c' })).secret];
    const bulkAndSingles = await Promise.all(Array.from({ length: 15 }, (_, i) => c('POST', '/v1/writing-plays', users[i % 3], i % 4 === 0 ? { plays: [play(i), play(i + 100)] } : play(i))));
    const created = bulkAndSingles.reduce((n, r) => n + (r.status === 201 ? (Array.isArray(r.body.data) ? r.body.data.length : 1) : 0), 0);
    for (const r of bulkAndSingles) if (r.status !== 201) assertError(r, 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
    const stored = await Promise.all(users.map((k) => count(k)));
    assert.ok(stored.every((n) => n <= 3), `per user: ${stored}`);
    assert.is(stored.reduce((a, b) => a + b, 0), created);
    assert.ok(created >= 1 && created <= 5, `never past the organization's cap: ${created}`);
    // Identities: their own caps and a size bound.
    const small = { companyName: 'Small Co' };
    const idn = await c('POST', '/v1/identities', o.secret, small);
    assert.is(idn.status, 201, JSON.stringify(idn.body));
    quota(await c('POST', '/v1/identities', o.secret, small), 'identities', 1, 1, 'user');
    const big = { companyName: 'Big Co', painPoints: Array.from({ length: 40 }, (_, i) => `A long pain point number ${i} that takes room`) };
    assertError(await c('POST', '/v1/identities', u2, big), 413, 'PAYLOAD_TOO_LARGE', { field: 'body', issue: 'too_large' });
    assert.is(await count(u2, 'identities'), 1, 'nothing written');
    assertError(await c('PATCH', `/v1/identities/${idn.body.data.id}`, o.secret, { painPoints: big.painPoints }, { 'If-Match': idn.headers.get('etag')! }), 413, 'PAYLOAD_TOO_LARGE', { field: 'body', issue: 'too_large' });
    assert.equal((await c('GET', `/v1/identities/${idn.body.data.id}`, o.secret)).body.data.painPoints, undefined, 'nothing applied');
    assert.is((await c('POST', '/v1/identities', u2, small)).status, 201);
    quota(await c('POST', '/v1/identities', u3, small), 'identities', 2, 2, 'organization');
  } finally {
    await capped.close();
  }
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
