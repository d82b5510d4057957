/**
 * Tags against a real server, Redis and Elasticsearch: envelope and status per endpoint,
 * normalization, idempotence (also under concurrency), bulk counts, the AND filter helper,
 * isolation between users and organizations, every bad input refused with nothing written,
 * scopes and test keys, 0 credits everywhere.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../server/errors.ts';
import { normalizeTag, scopeOf, type TagService } from '../../server/services/tags.ts';
import { assertError, loadFixtures, startHarness, type Harness } from './harness.ts';

type Res = { status: number; body: any; headers: Headers };

const t = suite('tags');
const org = `org-${randomUUID().slice(0, 8)}`;
const otherOrg = `${org}-b`;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ENTITY_TYPES = ['companies', 'personnel', 'broker-offices', 'brokers'];

let h: Harness;
let cleanup: () => Promise<void> = async () => {};
let svc: TagService;
/** alice and bob of one org; carol of another org, also named user "alice". */
let alice = '';
let bob = '';
let carol = '';
let aliceScope = '';

function assertOk(res: Res, status = 200): any {
  assert.is(res.status, status, JSON.stringify(res.body));
  assert.is(res.body.ok, true);
  assert.is(res.body.meta.credits_charged, 0);
  return res.body.data;
}

const call = (method: string, path: string, secret: string, body?: unknown) => h.call(method, path, { secret, body });
const tag = (secret: string, body: unknown) => call('POST', '/v1/tags', secret, body);

/** The caller's total number of tag records (all types, all tags). */
async function total(secret: string): Promise<number> {
  const res = await call('GET', '/v1/tags', secret);
  assertOk(res);
  return res.body.meta.total_count;
}

t.before(async () => {
  h = await startHarness();
  const live = await loadFixtures(h);
  const sandbox = await loadFixtures(h, { sandbox: true });
  cleanup = async () => {
    await live();
    await sandbox();
  };
  svc = h.running.services.tags;
  alice = (await h.key({ org, user: 'alice' })).secret;
  bob = (await h.key({ org, user: 'bob' })).secret;
  carol = (await h.key({ org: otherOrg, user: 'alice' })).secret;
  aliceScope = scopeOf({ org, user: 'alice' });
});

t.after(async () => {
  await h.close();
  await cleanup();
});

t('normalizeTag: trim, leading #s, case, inner whitespace; idempotent; empty and too long refused', () => {
  assert.is(normalizeTag('#VIP  Client'), 'vip client');
  assert.is(normalizeTag('  ##Renewal\t Q3\n '), 'renewal q3');
  assert.is(normalizeTag('# #Hot'), 'hot');
  assert.is(normalizeTag('C#-shop'), 'c#-shop');
  for (const raw of ['#VIP  Client', '# #Hot', ' Ünïcode  ÇASE ', 'a'.repeat(100)]) assert.is(normalizeTag(normalizeTag(raw)), normalizeTag(raw));
  for (const [raw, issue] of [['', 'empty'], ['  ## # ', 'empty'], ['x'.repeat(101), 'too_long'], ['a\u0000b', 'invalid_format']] as const) {
    try {
      normalizeTag(raw);
      assert.unreachable(`"${raw}" accepted`);
    } catch (err) {
      assert.instance(err, ApiError);
      assert.equal((err as ApiError).details[0].field, 'tag');
      assert.is((err as ApiError).details[0].issue, issue);
    }
  }
});

t('POST /v1/tags: 201 with the normalized record, then 200 with the same record; the resource alias works', async () => {
  const first = assertOk(await tag(alice, { entity_id: 'c1', entity_type: 'companies', tag: '#VIP  Client' }), 201);
  assert.match(first.id, UUID_RE);
  assert.equal(first, { id: first.id, entity_id: 'c1', entity_type: 'companies', tag: 'vip client', created_at: first.created_at, user_id: 'alice' });
  assert.is(new Date(first.created_at).toISOString(), first.created_at);
  const again = assertOk(await tag(alice, { entity_id: 'c1', entity_type: 'companies', tag: 'vip client' }));
  assert.equal(again, first);
  const alias = assertOk(await tag(alice, { entity_id: 'c1', resource: 'companies', tag: ' VIP CLIENT' }));
  assert.equal(alias, first);
  const both = assertOk(await tag(alice, { entity_id: 'c1', resource: 'companies', entity_type: 'companies', tag: 'Vip client' }));
  assert.is(both.id, first.id);
  const list = assertOk(await call('GET', '/v1/tags?tag=vip%20client', alice));
  assert.is(list.length, 1);
  assert.is(list[0].tag_id, first.id);
});

t('concurrent identical POSTs create exactly one record', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, () => tag(alice, { entity_id: 'p1', entity_type: 'personnel', tag: 'Race' })));
  assert.is(results.filter((r) => r.status === 201).length, 1);
  assert.is(results.filter((r) => r.status === 200).length, 19);
  assert.is(new Set(results.map((r) => r.body.data.id)).size, 1);
  assert.is((await call('GET', '/v1/tags?tag=race', alice)).body.meta.total_count, 1);
});

t('POST /v1/tags/bulk: created counts new rows, matched every entity; existing records are returned as they are', async () => {
  const existing = assertOk(await tag(alice, { entity_id: 'o1', entity_type: 'broker-offices', tag: 'Partner' }), 201);
  const res = assertOk(await call('POST', '/v1/tags/bulk', alice, { entity_ids: ['o1', 'o2', 'o3', 'o2'], resource: 'broker-offices', tag: '#partner' }), 201);
  assert.is(res.created, 2);
  assert.is(res.matched, 3);
  assert.equal(res.tags.map((r: { entity_id: string }) => r.entity_id), ['o1', 'o2', 'o3']);
  assert.equal(res.tags[0], existing);
  // /v1/tags/bulk is not a record id: DELETE there is 405 with the methods that work.
  const del = await call('DELETE', '/v1/tags/bulk', alice);
  assertError(del, 405, 'METHOD_NOT_ALLOWED');
  assert.is(del.headers.get('allow'), 'POST');
  for (const r of res.tags) {
    assert.is(r.entity_type, 'broker-offices');
    assert.is(r.tag, 'partner');
    assert.is(r.user_id, 'alice');
    assert.match(r.id, UUID_RE);
  }
  const repeat = assertOk(await call('POST', '/v1/tags/bulk', alice, { entity_ids: ['o3', 'o1'], entity_type: 'broker-offices', tag: 'PARTNER' }));
  assert.is(repeat.created, 0);
  assert.is(repeat.matched, 2);
  assert.equal(repeat.tags.map((r: { id: string }) => r.id), [res.tags[2].id, res.tags[0].id]);
  const list = assertOk(await call('GET', '/v1/tags?tag=partner&entity_type=broker-offices', alice));
  assert.is(list.length, 3, 'no duplicates');
});

t('entityIdsWithAllTags: AND over normalized tags, per entity type and per user', async () => {
  for (const [id, name] of [['c1', 'alpha'], ['c1', 'beta'], ['c2', 'alpha']]) assertOk(await tag(alice, { entity_id: id, entity_type: 'companies', tag: name }), 201);
  assertOk(await tag(alice, { entity_id: 'b1', entity_type: 'brokers', tag: 'beta' }), 201);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'companies', ['alpha', 'beta']), ['c1']);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'companies', ['#ALPHA']), ['c1', 'c2']);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'companies', ['alpha', 'nope']), []);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'brokers', ['beta']), ['b1']);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'brokers', ['alpha', 'beta']), []);
  assert.equal(await svc.namesOf(aliceScope, 'companies', 'c1'), ['alpha', 'beta', 'vip client']);
});

t('GET /v1/tags: newest first, filters, paging meta, tag_id naming', async () => {
  const all = (await call('GET', '/v1/tags?page_size=500', alice)).body;
  assert.is(all.meta.total_count, all.data.length);
  assert.is(all.data.length, 9);
  const times = all.data.map((r: { created_at: string }) => r.created_at);
  assert.equal(times, [...times].sort().reverse(), 'newest first');
  for (const r of all.data) {
    assert.match(r.tag_id, UUID_RE);
    assert.is(r.id, undefined);
    assert.ok(ENTITY_TYPES.includes(r.entity_type));
  }
  // Pages never overlap and together give the whole list.
  const seen: string[] = [];
  for (let page = 0; ; page++) {
    const res = await call('GET', `/v1/tags?page=${page}&page_size=3`, alice);
    const data = assertOk(res);
    assert.equal(Object.keys(res.body.meta).sort(), ['credits_charged', 'has_more', 'page', 'page_size', 'returned', 'total_count']);
    assert.is(res.body.meta.page, page);
    assert.is(res.body.meta.page_size, 3);
    assert.is(res.body.meta.returned, data.length);
    assert.is(res.body.meta.total_count, all.data.length);
    seen.push(...data.map((r: { tag_id: string }) => r.tag_id));
    assert.is(res.body.meta.has_more, seen.length < all.data.length);
    if (!res.body.meta.has_more) break;
  }
  assert.equal(seen, all.data.map((r: { tag_id: string }) => r.tag_id));
  const companies = assertOk(await call('GET', '/v1/tags?entity_type=companies&page_size=500', alice));
  assert.equal(companies, all.data.filter((r: { entity_type: string }) => r.entity_type === 'companies'));
  const beta = assertOk(await call('GET', '/v1/tags?resource=companies&tag=%23Beta', alice));
  assert.equal(beta.map((r: { entity_id: string }) => r.entity_id), ['c1']);
  const defaults = await call('GET', '/v1/tags', alice);
  assert.is(defaults.body.meta.page, 0);
  assert.is(defaults.body.meta.page_size, 25);
});

t('GET /v1/tags/entities by tag or tag_id; GET /v1/{resource}/{id}/tags', async () => {
  const byTag = assertOk(await call('GET', '/v1/tags/entities?tag=alpha', alice));
  assert.equal(byTag.map((r: { entity_id: string }) => r.entity_id).sort(), ['c1', 'c2']);
  const byId = assertOk(await call('GET', `/v1/tags/entities?tag_id=${byTag[0].tag_id}`, alice));
  assert.equal(byId, byTag);
  const beta = assertOk(await call('GET', '/v1/tags/entities?tag=beta&entity_type=brokers', alice));
  assert.equal(beta.map((r: { entity_id: string }) => r.entity_id), ['b1']);
  assertError(await call('GET', '/v1/tags/entities', alice), 400, 'VALIDATION_ERROR', { field: 'tag', issue: 'missing_required' });
  assertError(await call('GET', `/v1/tags/entities?tag_id=${randomUUID()}`, alice), 404, 'NOT_FOUND', { field: 'tag_id' });
  assertError(await call('GET', `/v1/tags/entities?tag=beta&tag_id=${byTag[0].tag_id}`, alice), 400, 'VALIDATION_ERROR', { field: 'tag_id', issue: 'conflicting_values' });

  // An id that names no record is a 404 naming it, as on the record's own path.
  assertError(await call('GET', '/v1/companies/no-such-company/tags', alice), 404, 'NOT_FOUND', { field: 'id' });
  const onC1 = assertOk(await call('GET', '/v1/companies/c1/tags', alice));
  assert.equal(onC1.map((r: { tag: string }) => r.tag).sort(), ['alpha', 'beta', 'vip client']);
  for (const r of onC1) {
    assert.match(r.id, UUID_RE);
    assert.is(r.entity_type, 'companies');
    assert.is(r.entity_id, 'c1');
  }
  assert.equal(assertOk(await call('GET', '/v1/personnel/p1/tags', alice)).map((r: { tag: string }) => r.tag), ['race']);
  assert.is(assertOk(await call('GET', '/v1/broker-offices/o2/tags', alice)).length, 1);
  assert.is(assertOk(await call('GET', '/v1/brokers/b1/tags', alice)).length, 1);
  assert.equal(assertOk(await call('GET', '/v1/brokers/b2/tags', alice)), []);
  assertError(await call('GET', '/v1/widgets/x/tags', alice), 404, 'NOT_FOUND', { field: 'path' });
  assertError(await call('GET', '/v1/companies/c1/tags?x=1', alice), 400, 'VALIDATION_ERROR', { field: 'x', issue: 'unknown_field' });
});

t('isolation: another user of the org and another org see none of the tags and cannot delete them', async () => {
  const mine = assertOk(await call('GET', '/v1/tags?tag=beta&entity_type=companies', alice))[0];
  for (const other of [bob, carol]) {
    const list = await call('GET', '/v1/tags', other);
    assert.equal(assertOk(list), []);
    assert.is(list.body.meta.total_count, 0);
    assert.equal(assertOk(await call('GET', '/v1/companies/c1/tags', other)), []);
    assert.equal(assertOk(await call('GET', '/v1/tags/entities?tag=beta', other)), []);
    assertError(await call('GET', `/v1/tags/entities?tag_id=${mine.tag_id}`, other), 404, 'NOT_FOUND');
    assertError(await call('DELETE', `/v1/tags/${mine.tag_id}`, other), 404, 'NOT_FOUND');
    assertError(await call('DELETE', '/v1/tags', other, { entity_id: 'c1', entity_type: 'companies', tag: 'beta' }), 404, 'NOT_FOUND');
  }
  // Their own tag of the same name on another entity: a new record of theirs, not alice's.
  const bobs = assertOk(await tag(bob, { entity_id: 'c2', entity_type: 'companies', tag: 'beta' }), 201);
  assert.is(bobs.user_id, 'bob');
  assertOk(await tag(carol, { entity_id: 'c2', entity_type: 'companies', tag: 'beta' }), 201);
  assertOk(await tag(bob, { entity_id: 'c1', entity_type: 'companies', tag: 'alpha' }), 201);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'companies', ['alpha', 'beta']), ['c1'], "alice's filter ignores bob's and carol's tags");
  assert.equal(await svc.entityIdsWithAllTags(scopeOf({ org, user: 'bob' }), 'companies', ['alpha', 'beta']), []);
  assertError(await call('DELETE', `/v1/tags/${bobs.id}`, alice), 404, 'NOT_FOUND');
  // A tag_id names its tag: every type unless entity_type narrows it.
  assert.equal(assertOk(await call('GET', `/v1/tags/entities?tag_id=${mine.tag_id}`, alice)).map((r: { entity_id: string }) => r.entity_id).sort(), ['b1', 'c1']);
  assert.equal(assertOk(await call('GET', `/v1/tags/entities?tag_id=${mine.tag_id}&entity_type=companies`, alice)).map((r: { entity_id: string }) => r.entity_id), ['c1']);
  assert.is((await call('GET', '/v1/tags', bob)).body.meta.total_count, 2);
  assert.is((await call('GET', '/v1/tags', carol)).body.meta.total_count, 1);
});

t('DELETE /v1/tags (pair) and DELETE /v1/tags/{id}: removed once, then 404', async () => {
  const before = await total(alice);
  const rec = assertOk(await tag(alice, { entity_id: 'c2', entity_type: 'companies', tag: 'Doomed' }), 201);
  const gone = assertOk(await call('DELETE', '/v1/tags', alice, { entity_id: 'c2', resource: 'companies', tag: '#DOOMED' }));
  assert.is(gone.id, rec.id);
  assert.is(gone.deleted, true);
  assertError(await call('DELETE', '/v1/tags', alice, { entity_id: 'c2', entity_type: 'companies', tag: 'doomed' }), 404, 'NOT_FOUND');
  assert.is(await total(alice), before);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'companies', ['doomed']), []);

  const rec2 = assertOk(await tag(alice, { entity_id: 'c2', entity_type: 'companies', tag: 'doomed' }), 201);
  assert.is.not(rec2.id, rec.id, 're-tagging after a delete makes a new record');
  const gone2 = assertOk(await call('DELETE', `/v1/tags/${rec2.id}`, alice));
  assert.is(gone2.entity_type, 'companies');
  assertError(await call('DELETE', `/v1/tags/${rec2.id}`, alice), 404, 'NOT_FOUND', { field: 'id' });
  assertError(await call('DELETE', '/v1/tags/not-a-uuid', alice), 404, 'NOT_FOUND');
  assert.is(await total(alice), before);
  assert.not.ok(assertOk(await call('GET', '/v1/companies/c2/tags', alice)).some((r: { tag: string }) => r.tag === 'doomed'));
  assert.equal(assertOk(await call('GET', '/v1/tags?tag=doomed', alice)), []);
});

t('bad bodies are 400 VALIDATION_ERROR naming the field and issue, and write nothing', async () => {
  const before = await total(alice);
  const cases: [string, string, unknown, string, string][] = [
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: 'x', colour: 'red' }, 'colour', 'unknown_field'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: 'x', entity_ids: ['c2'] }, 'entity_ids', 'unknown_field'],
    ['POST', '/v1/tags', { entity_id: 7, entity_type: 'companies', tag: 'x' }, 'entity_id', 'invalid_type'],
    ['POST', '/v1/tags', { entity_id: '', entity_type: 'companies', tag: 'x' }, 'entity_id', 'empty'],
    ['POST', '/v1/tags', { entity_type: 'companies', tag: 'x' }, 'entity_id', 'missing_required'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies' }, 'tag', 'missing_required'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: 5 }, 'tag', 'invalid_type'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: '' }, 'tag', 'empty'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: ' # ## ' }, 'tag', 'empty'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: 'y'.repeat(101) }, 'tag', 'too_long'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'widgets', tag: 'x' }, 'entity_type', 'invalid_value'],
    ['POST', '/v1/tags', { entity_id: 'c1', resource: 'widgets', tag: 'x' }, 'resource', 'invalid_value'],
    ['POST', '/v1/tags', { entity_id: 'c1', tag: 'x' }, 'entity_type', 'missing_required'],
    ['POST', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', resource: 'brokers', tag: 'x' }, 'resource', 'conflicting_values'],
    ['POST', '/v1/tags', ['c1'], 'body', 'invalid_type'],
    ['POST', '/v1/tags/bulk', { entity_ids: Array.from({ length: 101 }, (_, i) => `c${i}`), entity_type: 'companies', tag: 'x' }, 'entity_ids', 'too_many_items'],
    ['POST', '/v1/tags/bulk', { entity_ids: [], entity_type: 'companies', tag: 'x' }, 'entity_ids', 'too_few_items'],
    ['POST', '/v1/tags/bulk', { entity_ids: 'c1', entity_type: 'companies', tag: 'x' }, 'entity_ids', 'invalid_type'],
    ['POST', '/v1/tags/bulk', { entity_ids: ['c1', 3], entity_type: 'companies', tag: 'x' }, 'entity_ids[1]', 'invalid_type'],
    ['POST', '/v1/tags/bulk', { entity_id: 'c1', entity_ids: ['c1'], entity_type: 'companies', tag: 'x' }, 'entity_id', 'unknown_field'],
    ['POST', '/v1/tags/bulk', { entity_ids: ['c1'], entity_type: 'companies', tag: '#' }, 'tag', 'empty'],
    ['POST', '/v1/tags/bulk', { entity_ids: ['c1'], tag: 'x' }, 'entity_type', 'missing_required'],
    ['DELETE', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: 'vip client', extra: 1 }, 'extra', 'unknown_field'],
    ['DELETE', '/v1/tags', { entity_id: 'c1', entity_type: 'nope', tag: 'vip client' }, 'entity_type', 'invalid_value'],
    ['DELETE', '/v1/tags', { entity_id: 'c1', entity_type: 'companies', tag: '' }, 'tag', 'empty'],
  ];
  for (const [method, path, body, field, issue] of cases) {
    const res = await call(method, path, alice, body);
    assertError(res, 400, 'VALIDATION_ERROR', { field: field, issue: issue });
    if (issue === 'invalid_value') assert.equal([...res.body.error.details[0].expected].sort(), [...ENTITY_TYPES].sort());
  }
  assertError(await h.call('POST', '/v1/tags', { secret: alice, raw: '{"entity_id": ' }), 400, 'VALIDATION_ERROR', { field: 'body', issue: 'malformed_json' });
  // Every problem is reported at once.
  const many = await call('POST', '/v1/tags', alice, { entity_id: 'c1', tag: '##' });
  assertError(many, 400, 'VALIDATION_ERROR', { field: 'entity_type', issue: 'missing_required' });
  assertError(many, 400, 'VALIDATION_ERROR', { field: 'tag', issue: 'empty' });
  assert.is(await total(alice), before);
  assert.equal(assertOk(await call('GET', '/v1/companies/c1/tags', alice)).map((r: { tag: string }) => r.tag).sort(), ['alpha', 'beta', 'vip client']);
});

t('unknown entity ids are invalid_reference and nothing is written, even for the valid ids of a bulk', async () => {
  const before = await total(alice);
  assertError(await tag(alice, { entity_id: 'c404', entity_type: 'companies', tag: 'fresh' }), 400, 'VALIDATION_ERROR', { field: 'entity_id', issue: 'invalid_reference' });
  // p1 exists, but not as a company.
  assertError(await tag(alice, { entity_id: 'p1', entity_type: 'companies', tag: 'fresh' }), 400, 'VALIDATION_ERROR', { field: 'entity_id', issue: 'invalid_reference' });
  // c3 was a rejected row of the fixture: never indexed.
  assertError(await tag(alice, { entity_id: 'c3', entity_type: 'companies', tag: 'fresh' }), 400, 'VALIDATION_ERROR', { field: 'entity_id', issue: 'invalid_reference' });
  const bulk = await call('POST', '/v1/tags/bulk', alice, { entity_ids: ['c1', 'nope', 'c2', 'p9'], entity_type: 'companies', tag: 'fresh' });
  assertError(bulk, 400, 'VALIDATION_ERROR', { field: 'entity_ids[1]', issue: 'invalid_reference' });
  assertError(bulk, 400, 'VALIDATION_ERROR', { field: 'entity_ids[3]', issue: 'invalid_reference' });
  assert.is(bulk.body.error.details.length, 2);
  assert.is(await total(alice), before);
  assert.equal(assertOk(await call('GET', '/v1/tags?tag=fresh', alice)), []);
  assert.equal(await svc.entityIdsWithAllTags(aliceScope, 'companies', ['fresh']), []);
  // A namespace without the entity's alias: the same refusal.
  try {
    await svc.add({ scope: aliceScope, org, userId: 'alice', dataNamespace: `${h.config.namespace}-none` }, 'companies', 'c1', 'fresh');
    assert.unreachable('tagged an entity of a missing index');
  } catch (err) {
    assert.instance(err, ApiError);
    assert.is((err as ApiError).details[0].issue, 'invalid_reference');
  }
  assert.is(await total(alice), before);
});

t('bad query parameters are 400 naming the parameter', async () => {
  const cases: [string, string, string][] = [
    ['/v1/tags?page=-1', 'page', 'invalid_integer'],
    ['/v1/tags?page=abc', 'page', 'invalid_integer'],
    ['/v1/tags?page=1.5', 'page', 'invalid_integer'],
    ['/v1/tags?page_size=0', 'page_size', 'out_of_range'],
    ['/v1/tags?page_size=501', 'page_size', 'out_of_range'],
    ['/v1/tags?entity_type=widgets', 'entity_type', 'invalid_value'],
    ['/v1/tags?resource=companies&entity_type=brokers', 'resource', 'conflicting_values'],
    ['/v1/tags?tag=', 'tag', 'empty'],
    ['/v1/tags?tag=a&tag=b', 'tag', 'invalid_type'],
    ['/v1/tags?colour=red', 'colour', 'unknown_field'],
    ['/v1/tags?tag_id=x', 'tag_id', 'unknown_field'],
    ['/v1/tags/entities?tag=a&page_size=1000', 'page_size', 'out_of_range'],
    ['/v1/tags/entities?tag=a&entity_type=x', 'entity_type', 'invalid_value'],
  ];
  for (const [path, field, issue] of cases) assertError(await call('GET', path, alice), 400, 'VALIDATION_ERROR', { field: field, issue: issue });
  assertOk(await call('GET', '/v1/tags?page_size=500&page=0', alice));
});

t('scopes: test keys may read but not write; keys without tags scopes are refused; no key is 401', async () => {
  const test = (await h.key({ org, user: 'alice', key_type: 'test' })).secret;
  assertOk(await call('GET', '/v1/tags', test));
  assertOk(await call('GET', '/v1/companies/c1/tags', test));
  assertOk(await call('GET', '/v1/tags/entities?tag=alpha', test));
  const before = await total(alice);
  assertError(await tag(test, { entity_id: 'c2', entity_type: 'companies', tag: 'from-test' }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
  assertError(await call('POST', '/v1/tags/bulk', test, { entity_ids: ['c2'], entity_type: 'companies', tag: 'from-test' }), 403, 'FORBIDDEN');
  assertError(await call('DELETE', '/v1/tags', test, { entity_id: 'c1', entity_type: 'companies', tag: 'alpha' }), 403, 'FORBIDDEN');
  const some = assertOk(await call('GET', '/v1/tags', alice))[0];
  assertError(await call('DELETE', `/v1/tags/${some.tag_id}`, test), 403, 'FORBIDDEN');
  assert.is(await total(alice), before);

  const readOnly = (await h.key({ org, user: 'alice', scopes: ['tags:read'] })).secret;
  assertOk(await call('GET', '/v1/tags', readOnly));
  assertError(await tag(readOnly, { entity_id: 'c2', entity_type: 'companies', tag: 'x' }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
  const none = (await h.key({ org, user: 'alice', scopes: ['read:companies'] })).secret;
  assertError(await call('GET', '/v1/tags', none), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
  assertError(await call('GET', '/v1/companies/c1/tags', none), 403, 'FORBIDDEN');
  assertError(await tag(none, { entity_id: 'c2', entity_type: 'companies', tag: 'x' }), 403, 'FORBIDDEN');
  assertError(await h.call('GET', '/v1/tags'), 401, 'UNAUTHORIZED');
  assertError(await h.call('POST', '/v1/tags', { body: { entity_id: 'c1', entity_type: 'companies', tag: 'x' } }), 401, 'UNAUTHORIZED');
  assert.is(await total(alice), before);
});

t('a side of its own: a test key reads none of its user\'s live tags (list, entities, per entity, the tags= filter and the rows\' tags)', async () => {
  const side = `side-${randomUUID().slice(0, 6)}`;
  assertOk(await tag(alice, { entity_id: 'c1', entity_type: 'companies', tag: side }), 201);
  const test = (await h.key({ org, user: 'alice', key_type: 'test' })).secret;
  const listed = assertOk(await call('GET', '/v1/tags?page_size=100', test));
  assert.equal(listed, [], 'GET /v1/tags with a test key lists no live tag');
  assert.equal(assertOk(await call('GET', `/v1/tags/entities?tag=${side}`, test)), []);
  assert.equal(assertOk(await call('GET', '/v1/companies/c1/tags', test)), []);
  // c1 is also a sandbox company: the live tag neither chooses it nor shows on its row.
  const rows = await call('GET', `/v1/companies?tags=${side}`, test);
  assert.is(rows.status, 200, JSON.stringify(rows.body));
  assert.equal(rows.body.data, [], 'the tags= filter of a test key does not read live tags');
  // The live key still sees it.
  assert.ok(assertOk(await call('GET', `/v1/tags/entities?tag=${side}`, alice)).some((r: { entity_id: string }) => r.entity_id === 'c1'));
});

t('caps: records per user and per organization (429 QUOTA_EXCEEDED with the limit and the count); a refused call writes nothing; a delete frees a place; concurrent adds never pass either cap', async () => {
  const capped = await startHarness({ BINTEL_TAGS_MAX_PER_USER: '5', BINTEL_TAGS_MAX_PER_ORG: '8' });
  try {
    const o = `org-${randomUUID().slice(0, 8)}`;
    const [u1, u2, u3] = await Promise.all(['u1', 'u2', 'u3'].map(async (user) => (await capped.key({ org: o, user })).secret));
    const ccall = (method: string, path: string, secret: string, body?: unknown) => capped.call(method, path, { secret, body });
    const count = async (secret: string) => (await ccall('GET', '/v1/tags', secret)).body.meta.total_count as number;
    const quota = (res: Res, field: string, limit: number, current: number, per: string) => {
      assertError(res, 429, 'QUOTA_EXCEEDED', { field, issue: 'quota_exceeded' });
      assert.equal(res.body.error.details[0].expected, { limit, current, per }, JSON.stringify(res.body));
    };
    // A bulk past the user's cap is refused whole.
    for (let i = 0; i < 4; i++) assert.is((await ccall('POST', '/v1/tags', u1, { entity_id: 'c1', entity_type: 'companies', tag: `t${i}` })).status, 201);
    quota(await ccall('POST', '/v1/tags/bulk', u1, { entity_ids: ['c1', 'c2'], entity_type: 'companies', tag: 'x' }), 'entity_ids', 5, 4, 'user');
    assert.is(await count(u1), 4, 'nothing written');
    assert.is((await ccall('POST', '/v1/tags', u1, { entity_id: 'c1', entity_type: 'companies', tag: 't4' })).status, 201);
    // An existing pair is not a new record: it still answers at the cap.
    assert.is((await ccall('POST', '/v1/tags', u1, { entity_id: 'c1', entity_type: 'companies', tag: 't0' })).status, 200);
    quota(await ccall('POST', '/v1/tags', u1, { entity_id: 'c2', entity_type: 'companies', tag: 'more' }), 'tag', 5, 5, 'user');
    for (let i = 0; i < 3; i++) assert.is((await ccall('POST', '/v1/tags', u2, { entity_id: 'c2', entity_type: 'companies', tag: `t${i}` })).status, 201);
    quota(await ccall('POST', '/v1/tags', u2, { entity_id: 'c1', entity_type: 'companies', tag: 'more' }), 'tag', 8, 8, 'organization');
    assert.equal([await count(u1), await count(u2), await count(u3)], [5, 3, 0]);
    // A delete frees one place of the user and of the organization, taken once under concurrency.
    assert.is((await ccall('DELETE', '/v1/tags', u1, { entity_id: 'c1', entity_type: 'companies', tag: 't4' })).status, 200);
    const race = await Promise.all([u2, u3, u2, u3].map((s, i) => ccall('POST', '/v1/tags', s, { entity_id: 'c2', entity_type: 'companies', tag: `race${i}` })));
    assert.is(race.filter((r) => r.status === 201).length, 1, JSON.stringify(race.map((r) => r.status)));
    for (const r of race.filter((x) => x.status !== 201)) assertError(r, 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
    assert.is((await count(u1)) + (await count(u2)) + (await count(u3)), 8);
    // Property: from empty, many concurrent single and bulk adds by three users: what is stored never passes a cap and equals what was answered 201.
    const o2 = `org-${randomUUID().slice(0, 8)}`;
    const users = await Promise.all(['a', 'b', 'c'].map(async (user) => (await capped.key({ org: o2, user })).secret));
    const calls = Array.from({ length: 24 }, (_, i) => {
      const who = users[i % 3];
      return i % 4 === 0
        ? ccall('POST', '/v1/tags/bulk', who, { entity_ids: ['c1', 'c2'], entity_type: 'companies', tag: `b${i}` })
        : ccall('POST', '/v1/tags', who, { entity_id: 'c2', entity_type: 'companies', tag: `s${i}` });
    });
    const results = await Promise.all(calls);
    const created = results.reduce((n, r) => n + (r.status === 201 ? (r.body.data.created ?? 1) : 0), 0);
    for (const r of results) if (r.status !== 201) assertError(r, 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
    const stored = await Promise.all(users.map(count));
    assert.ok(stored.every((n) => n <= 5), `per user: ${stored}`);
    assert.is(stored.reduce((a, b) => a + b, 0), created, 'stored = answered');
    assert.ok(created >= 1 && created <= 8, `never past the organization's cap: ${created}`);
  } finally {
    await capped.close();
  }
});

t.run();
