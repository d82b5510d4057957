/**
 * Key records are bounded: active child keys per user (whichever of the user's root keys makes
 * them), active keys per organization, key creations per user per day (create-revoke cycles are
 * no unlimited supply), all 429 QUOTA_EXCEEDED naming the limit; revoked keys are purged after
 * the retention period, so listing reads a bounded number of records.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertError, startHarness, type Harness } from './harness.ts';
import { pollUntil } from '../helpers/env.ts';

const t = suite('key quotas');
let h: Harness;
const ENV = { BINTEL_MAX_CHILD_KEYS: '3', BINTEL_MAX_ORG_KEYS: '8', BINTEL_MAX_KEY_CREATIONS_PER_DAY: '5', BINTEL_REVOKED_KEY_RETENTION_S: '1' };

t.before(async () => {
  h = await startHarness(ENV);
});
t.after(async () => {
  await h.close();
});

const newOrg = () => `kq-${randomUUID().slice(0, 8)}`;
const create = (secret: string) => h.call('POST', '/v1/api-keys', { secret, body: { scopes: ['read:companies'] } });

t('the child-key cap is per user: two root keys of one user share it, also under 20 parallel creations', async () => {
  const org = newOrg();
  const r1 = await h.key({ org, user: 'alice' });
  const r2 = await h.key({ org, user: 'alice', name: 'second root' });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 ? r1.secret : r2.secret)));
  const made = results.filter((r) => r.status === 201);
  assert.is(made.length, 3, 'exactly the per-user cap is created');
  for (const r of results.filter((x) => x.status !== 201)) {
    assertError(r, 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
    assert.equal(r.body.error.details[0].expected, { max_active_child_keys: 3 });
  }
  // Another user of the organization has a cap of its own.
  assert.is((await create((await h.key({ org, user: 'bob' })).secret)).status, 201);
});

t('active keys per organization are capped: the root keys count, a child beyond the cap is 429 naming the limit', async () => {
  const org = newOrg();
  const roots = await Promise.all(['a', 'b', 'c', 'd'].map((user) => h.key({ org, user })));
  // 4 roots + 4 children = 8 active keys, the cap.
  for (const r of roots) assert.is((await create(r.secret)).status, 201);
  const over = await create(roots[0].secret);
  assertError(over, 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
  assert.equal(over.body.error.details[0].expected, { max_active_keys_per_organization: 8 });
});

t('create-revoke cycles are no unlimited supply: creations per user per day are capped, whatever is revoked', async () => {
  const org = newOrg();
  const root = await h.key({ org, user: 'cycler' });
  const statuses: number[] = [];
  let last: Awaited<ReturnType<Harness['call']>> | undefined;
  for (let i = 0; i < 7; i++) {
    last = await create(root.secret);
    statuses.push(last.status);
    if (last.status === 201) assert.is((await h.call('DELETE', `/v1/api-keys/${last.body.data.id}`, { secret: root.secret })).status, 200);
  }
  assert.equal(statuses, [201, 201, 201, 201, 201, 429, 429]);
  assertError(last!, 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
  assert.equal(last!.body.error.details[0].expected, { max_key_creations_per_day: 5 });
});

t('revoked keys are purged after the retention period: gone from the list and from Redis, the secret unknown', async () => {
  const org = newOrg();
  const root = await h.key({ org, user: 'purger' });
  const made = await create(root.secret);
  assert.is(made.status, 201);
  const id = made.body.data.id as string;
  assert.is((await h.call('DELETE', `/v1/api-keys/${id}`, { secret: root.secret })).status, 200);
  const listed = async () => (await h.call('GET', '/v1/api-keys', { secret: root.secret })).body.data.map((k: { id: string }) => k.id) as string[];
  await pollUntil(async () => !(await listed()).includes(id), { what: 'the revoked key purged from the list', timeoutMs: 8000 });
  const s = h.running.services;
  assert.is(await s.keys.get(id), null, 'the key record is deleted');
  assert.not.ok((await s.redis.smembers(s.rk.orgKeys(org))).includes(id), "the organization's key list no longer names it");
  assertError(await h.call('GET', '/v1/whoami', { secret: made.body.data.secret }), 401, 'UNAUTHORIZED', { issue: 'invalid_credentials' });
  assert.ok((await listed()).includes(root.key.id), 'active keys stay');
});

t('an organization from before the caps: its active-key sets are rebuilt from its records, and an old revoked key is purged when listed', async () => {
  const org = newOrg();
  const root = await h.key({ org, user: 'legacy' });
  const made: string[] = [];
  for (let i = 0; i < 3; i++) made.push((await create(root.secret)).body.data.id as string);
  assert.is((await h.call('DELETE', `/v1/api-keys/${made[0]}`, { secret: root.secret })).status, 200);
  const s = h.running.services;
  // As an organization made before: no active-key sets, no index of revocations.
  await s.redis.del(s.rk.activeKeys(org), s.rk.childKeys(org, 'legacy'), s.rk.revokedKeys(org));
  assert.is((await create(root.secret)).status, 201, 'two active children: a third fits');
  assertError(await create(root.secret), 429, 'QUOTA_EXCEEDED', { issue: 'quota_exceeded' });
  const listed = async () => (await h.call('GET', '/v1/api-keys', { secret: root.secret })).body.data.map((k: { id: string }) => k.id) as string[];
  await pollUntil(async () => !(await listed()).includes(made[0]), { what: 'the old revoked key purged', timeoutMs: 8000 });
  assert.is(await s.keys.get(made[0]), null);
});

t.run();
