/**
 * The key lifecycle under races, through two servers sharing Redis: concurrent rotations,
 * rotation racing revocation, a stale budget write after either, and a root's revoke reaching its
 * children (also one created while the root is being revoked). Properties over every secret the
 * API ever returned, checked with GET /v1/whoami on both servers.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { raceRotations } from '../helpers/key-races.ts';
import { assertError, startHarness, type Harness } from './harness.ts';

const t = suite('key races');
let a: Harness;
let b: Harness;
const org = `kr-${randomUUID().slice(0, 8)}`;

t.before(async () => {
  a = await startHarness();
  b = await startHarness();
});
t.after(async () => {
  await a.close();
  await b.close();
});

t('50 rounds of two concurrent rotations, then a rotation racing a revoke: at most one secret works, none after the revoke', async () => {
  const root = await a.key({ org });
  const { rotations } = await raceRotations(a, b, { org, secret: root.secret }, 50);
  assert.ok(rotations >= 50);
});

t('a stale budget write after a rotation or a revoke brings no secret back', async () => {
  const root = await a.key({ org });
  const created = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } });
  const id = created.body.data.id as string;
  const stale = (await a.running.services.keys.get(id))!;
  const rot = await a.call('POST', `/v1/api-keys/${id}/rotate`, { secret: root.secret });
  assert.is(rot.status, 200);
  await a.running.services.keys.setBudget(stale, { total: 5, daily: null });
  assertError(await b.call('GET', '/v1/whoami', { secret: created.body.data.secret }), 401, 'UNAUTHORIZED', { field: 'authorization', issue: 'rotated_key' });
  const fresh = await b.call('GET', '/v1/whoami', { secret: rot.body.data.secret });
  assert.is(fresh.status, 200);
  assert.is(fresh.body.data.key.budget.total_milli, 5000, 'the budget itself was set');

  const beforeRevoke = (await a.running.services.keys.get(id))!;
  assert.is((await a.call('DELETE', `/v1/api-keys/${id}`, { secret: root.secret })).status, 200);
  await a.running.services.keys.setBudget(beforeRevoke, { total: 7, daily: null });
  for (const secret of [created.body.data.secret, rot.body.data.secret]) {
    assertError(await b.call('GET', '/v1/whoami', { secret }), 401, 'UNAUTHORIZED', { field: 'authorization' });
  }
  assert.is((await a.running.services.keys.get(id))!.status, 'revoked');
});

t("revoking a root key stops its child keys, including one created while the revoke runs", async () => {
  for (let round = 0; round < 10; round++) {
    const root = await a.key({ org: `${org}-r${round}` });
    const first = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } });
    assert.is(first.status, 201);
    const [late, revoked] = await Promise.all([
      a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } }),
      b.call('DELETE', `/v1/api-keys/${root.key.id}`, { secret: root.secret }),
    ]);
    assert.is(revoked.status, 200, JSON.stringify(revoked.body));
    const children = [first.body.data.secret, late.status === 201 ? late.body.data.secret : null].filter((s): s is string => !!s);
    for (const secret of [root.secret, ...children]) {
      const res = await b.call('GET', '/v1/whoami', { secret });
      assertError(res, 401, 'UNAUTHORIZED', { field: 'authorization', issue: 'revoked_key' });
    }
    // Listed as revoked too (the operator's view: the root can no longer list).
    for (const k of await a.running.services.keys.list(`${org}-r${round}`)) assert.is(k.status, 'revoked', k.id);
  }
});

t('the key record by id is the authority: a secret record that still says active does not authenticate a revoked key', async () => {
  const { key, secret } = await a.key({ org });
  const services = a.running.services;
  const rec = (await services.keys.get(key.id))!;
  await services.redis.set(services.rk.key(key.id), JSON.stringify({ ...rec, status: 'revoked', revoked_at: new Date().toISOString() }));
  assertError(await b.call('GET', '/v1/whoami', { secret }), 401, 'UNAUTHORIZED', { field: 'authorization', issue: 'revoked_key' });
});

t('a root key has at most BINTEL_MAX_CHILD_KEYS active children, also under 20 parallel creations; a revoke frees a place', async () => {
  const capped = await startHarness({ BINTEL_MAX_CHILD_KEYS: '5' });
  try {
    const root = await capped.key({ org: `${org}-cap` });
    const create = () => capped.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } });
    const results = await Promise.all(Array.from({ length: 20 }, create));
    const made = results.filter((r) => r.status === 201);
    assert.is(made.length, 5, 'exactly the cap is created');
    for (const r of results.filter((x) => x.status !== 201)) {
      assertError(r, 429, 'QUOTA_EXCEEDED', { field: 'scopes', issue: 'quota_exceeded' });
      assert.equal(r.body.error.details[0].expected, { max_active_child_keys: 5 });
    }
    const listed = await capped.call('GET', '/v1/api-keys', { secret: root.secret });
    assert.is(listed.body.data.length, 6, 'the root and its five children, nothing half-written');
    assert.is((await capped.call('DELETE', `/v1/api-keys/${made[0].body.data.id}`, { secret: root.secret })).status, 200);
    assert.is((await create()).status, 201, 'a revoked child frees its place');
    assertError(await create(), 429, 'QUOTA_EXCEEDED');
  } finally {
    await capped.close();
  }
});

t.run();
