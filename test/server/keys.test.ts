/**
 * Access: envelope and status codes, authentication states, scopes, child-key rules,
 * revoke and rotate seen by a second server process sharing Redis.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { ENTITIES, ENTITY_NAMES, entity } from '../../mappings/index.ts';
import { ApiError } from '../../server/errors.ts';
import type { KeyRecord } from '../../server/services/keys.ts';
import { assertSortAllowed, keyTier } from '../../server/services/tiers.ts';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';
import { awaitFreshRateWindow } from '../helpers/env.ts';

const t = suite('access');
let a: Harness;
let b: Harness;
const org = `org-${randomUUID().slice(0, 8)}`;

t.before(async () => {
  a = await startHarness();
  b = await startHarness();
});
t.after(async () => {
  await a.close();
  await b.close();
});

t('health needs no key; with no data loaded it is not ready and names the missing aliases, not the backends', async () => {
  // (200 with both backends reported: test/server/metrics.test.ts, which loads data.)
  const res = await a.call('GET', '/v1/health');
  assertError(res, 503, 'SERVICE_UNAVAILABLE', { field: 'index.companies', issue: 'not_found' });
  assert.not.ok(res.body.error.details.some((d: { field: string }) => d.field === 'elasticsearch' || d.field === 'redis'));
  assert.ok(res.headers.get('x-request-id'));
});

t('unknown /v1 paths are 404 in the envelope, with or without a key', async () => {
  assertError(await a.call('GET', '/v1/nope'), 404, 'NOT_FOUND', { field: 'path' });
  const { secret } = await a.key({ org });
  assertError(await a.call('GET', '/v1/companiez/x', { secret }), 404, 'NOT_FOUND', { field: 'path' });
});

t('401 for missing, malformed and unknown credentials', async () => {
  assertError(await a.call('GET', '/v1/whoami'), 401, 'UNAUTHORIZED', { field: 'authorization' });
  assertError(await a.call('GET', '/v1/whoami', { headers: { authorization: 'Basic abc' } }), 401, 'UNAUTHORIZED');
  assertError(await a.call('GET', '/v1/whoami', { secret: 'bk_live_short' }), 401, 'UNAUTHORIZED');
  assertError(await a.call('GET', '/v1/whoami', { secret: `bk_live_${'A'.repeat(40)}` }), 401, 'UNAUTHORIZED');
  const res = await a.call('GET', '/v1/whoami');
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
});

t('whoami describes the key and never its secret or hash', async () => {
  const { key, secret } = await a.key({ org, user: 'alice', field_tier: 'basic' });
  const res = await a.call('GET', '/v1/whoami', { secret });
  assert.is(res.status, 200);
  assert.is(res.body.data.key.id, key.id);
  assert.is(res.body.data.organization, org);
  assert.is(res.body.meta.key_tier, 'basic');
  assert.is(res.body.meta.credits_charged, 0);
  const text = JSON.stringify(res.body);
  assert.not.ok(text.includes(secret));
  assert.not.ok(text.includes('secret_hash'));
  assert.ok(res.headers.get('ratelimit-limit'));
});

t('child keys: root only, data-read scopes the parent holds, tier templates copied', async () => {
  const root = await a.key({ org, field_tier: 'advanced', scopes: ['read:companies', 'read:personnel', 'keys:read', 'keys:write', 'credits:read'] });
  const created = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'], name: 'reporting' } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const child = created.body.data;
  assert.match(child.secret, /^bk_live_/);
  assert.is(child.parent_id, root.key.id);
  assert.equal(child.scopes, ['read:companies']);
  assert.equal(child.field_tiers, root.key.field_tiers);
  assert.equal(child.entity_field_tiers, root.key.entity_field_tiers);

  assertError(await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['keys:write'] } }), 400, 'VALIDATION_ERROR', { field: 'scopes' });
  assertError(await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:brokers'] } }), 403, 'FORBIDDEN', { field: 'scopes' });
  assertError(await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'], nmae: 'typo' } }), 400, 'VALIDATION_ERROR', { field: 'nmae' });
  const unknownField = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'], nmae: 'typo' } });
  assert.is(unknownField.body.error.details[0].issue, 'unknown_field');
  assertError(await a.call('POST', '/v1/api-keys', { secret: root.secret, body: {} }), 400, 'VALIDATION_ERROR', { field: 'scopes' });
  assertError(await a.call('POST', '/v1/api-keys', { secret: root.secret, raw: '{"scopes": [' }), 400, 'VALIDATION_ERROR', { field: 'body' });
  assertError(await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: 'read:companies' } }), 400, 'VALIDATION_ERROR', { field: 'scopes' });
  // A child cannot create keys, even with the scope list of its parent.
  assertError(await a.call('POST', '/v1/api-keys', { secret: child.secret, body: { scopes: ['read:companies'] } }), 403, 'FORBIDDEN');

  const basicRoot = await a.key({ org, field_tier: 'basic', scopes: ['read:companies', 'keys:write'] });
  assertError(await a.call('POST', '/v1/api-keys', { secret: basicRoot.secret, body: { scopes: ['read:companies'], field_tier: 'advanced' } }), 403, 'FORBIDDEN', { field: 'field_tier' });

  const list = await a.call('GET', '/v1/api-keys', { secret: root.secret });
  assert.is(list.status, 200);
  const ids = list.body.data.map((k: { id: string }) => k.id);
  assert.ok(ids.includes(root.key.id) && ids.includes(child.id));
  for (const k of list.body.data) {
    assert.is(k.secret, undefined);
    assert.is(k.secret_hash, undefined);
    assert.type(k.credits_used, 'number');
    assert.type(k.rows_returned, 'number');
    assert.type(k.queries, 'number');
  }
});

t('a basic child of an advanced root is basic for every resource, with the templates of its parent', async () => {
  const root = await a.key({ org, field_tier: 'advanced' });
  const created = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'], field_tier: 'basic' } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const child = created.body.data as KeyRecord;
  assert.is(child.field_tier, 'basic');
  assert.equal(child.entity_field_tiers, Object.fromEntries(ENTITY_NAMES.map((e) => [e, 'basic'])));
  assert.equal(child.field_tiers, root.key.field_tiers);
  for (const def of ENTITIES) assert.is(keyTier(child, def), 'basic', def.name);
  assert.throws(() => assertSortAllowed(child, entity('companies'), 'total_premiums'), (e: unknown) => e instanceof ApiError && e.status === 403);
});

t('missing scope is 403 FORBIDDEN', async () => {
  const { secret } = await a.key({ org, scopes: ['read:companies'] });
  assertError(await a.call('GET', '/v1/api-keys', { secret }), 403, 'FORBIDDEN', { field: 'authorization' });
});

t('every live key reads its organization balance, whatever its scopes (the spec names none); a test key does not', async () => {
  const { secret } = await a.key({ org, scopes: ['read:companies'] });
  const res = await a.call('GET', '/v1/credits', { secret });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.data.organization, org);
  const specScopes = ['keys:read', 'keys:write', 'tags:read', 'tags:write', 'usage:read', 'read:companies', 'read:personnel', 'read:broker-offices', 'read:brokers'];
  const spec = await a.key({ org, scopes: specScopes });
  assert.is((await a.call('GET', '/v1/credits', { secret: spec.secret })).status, 200);
  const test = await a.key({ org, key_type: 'test' });
  assertError(await a.call('GET', '/v1/credits', { secret: test.secret }), 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
});

t('keys of another organization are invisible (404), never managed', async () => {
  const mine = await a.key({ org });
  const theirs = await a.key({ org: `${org}-other` });
  assertError(await a.call('DELETE', `/v1/api-keys/${theirs.key.id}`, { secret: mine.secret }), 404, 'NOT_FOUND', { field: 'key_id' });
  const still = await a.call('GET', '/v1/whoami', { secret: theirs.secret });
  assert.is(still.status, 200);
});

t('revoke takes effect at once in another server process', async () => {
  const root = await a.key({ org, user: 'bob' });
  const made = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } });
  const victim = { key: made.body.data, secret: made.body.data.secret as string };
  assert.is((await b.call('GET', '/v1/whoami', { secret: victim.secret })).status, 200);
  const res = await a.call('DELETE', `/v1/api-keys/${victim.key.id}`, { secret: root.secret });
  assert.is(res.status, 200);
  assert.is(res.body.data.status, 'revoked');
  const after = await b.call('GET', '/v1/whoami', { secret: victim.secret });
  assertError(after, 401, 'UNAUTHORIZED');
  assert.is(after.body.error.details[0].issue, 'revoked_key');
});

t('rotate returns a new secret once; the old one fails at once everywhere', async () => {
  const root = await a.key({ org });
  const res = await a.call('POST', `/v1/api-keys/${root.key.id}/rotate`, { secret: root.secret });
  assert.is(res.status, 200);
  const fresh = res.body.data.secret;
  assert.match(fresh, /^bk_live_/);
  assert.is.not(fresh, root.secret);
  const old = await b.call('GET', '/v1/whoami', { secret: root.secret });
  assertError(old, 401, 'UNAUTHORIZED');
  assert.is(old.body.error.details[0].issue, 'rotated_key');
  assert.is((await b.call('GET', '/v1/whoami', { secret: fresh })).status, 200);
});

t('test keys cannot manage keys, read credits or write tags', async () => {
  const test = await a.key({ org, key_type: 'test' });
  assert.match(test.secret, /^bk_test_/);
  assert.is((await a.call('GET', '/v1/whoami', { secret: test.secret })).body.data.sandbox, true);
  assertError(await a.call('GET', '/v1/api-keys', { secret: test.secret }), 403, 'FORBIDDEN');
  assertError(await a.call('POST', '/v1/api-keys', { secret: test.secret, body: { scopes: ['read:companies'] } }), 403, 'FORBIDDEN');
  assertError(await a.call('GET', '/v1/credits', { secret: test.secret }), 403, 'FORBIDDEN');
});

t('rate limit: RateLimit headers on every call, then 429 RATE_LIMITED with Retry-After', async () => {
  const limited = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '3' });
  try {
    // An organization of its own: the window is the user's, and this suite's org has spent u1's.
    const { secret } = await limited.key({ org: `${org}-rate` });
    await awaitFreshRateWindow();
    for (let i = 0; i < 3; i++) {
      const res = await limited.call('GET', '/v1/whoami', { secret });
      assert.is(res.status, 200);
      assert.is(res.headers.get('ratelimit-limit'), '3');
      assert.is(res.headers.get('ratelimit-remaining'), String(2 - i));
    }
    const over = await limited.call('GET', '/v1/whoami', { secret });
    assertError(over, 429, 'RATE_LIMITED');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    // The window is the user's (it was the key's): another key of the user shares it, another user's key has its own.
    const same = await limited.key({ org: `${org}-rate` });
    assertError(await limited.call('GET', '/v1/whoami', { secret: same.secret }), 429, 'RATE_LIMITED');
    const other = await limited.key({ org: `${org}-rate`, user: 'u2' });
    assert.is((await limited.call('GET', '/v1/whoami', { secret: other.secret })).status, 200);
  } finally {
    await limited.close();
  }
});

t('credits endpoint shows the pool', async () => {
  const k = await withOrg(a, { org: `${org}-credits`, milli: 12_500 });
  const res = await a.call('GET', '/v1/credits', { secret: k.secret });
  assert.is(res.status, 200);
  assert.is(res.body.data.balance, 12.5);
  assert.is(res.body.meta.credits_charged, 0);
});

t.run();
