/**
 * Key management follows the user: a key manages itself and the child keys of its user; another
 * user's keys and operator-made internal keys answer exactly as an unknown id (404, same body);
 * `GET /v1/api-keys` lists what the caller may manage. The organization is made as an operator
 * makes one: several users, each with a root key from `bintel keys create --org --user`.
 * Races across users are checked over every outcome: no secret of another user ever leaks.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { assertError, startHarness, type Harness } from './harness.ts';
import { bintel as run } from '../helpers/cli.ts';

const t = suite('key authority');
let h: Harness;
const org = `ka-${randomUUID().slice(0, 8)}`;

type Made = { id: string; secret: string };

t.before(async () => {
  h = await startHarness();
});
t.after(async () => {
  await h.close();
});

/** A root key as the operator makes it: `bintel keys create --org --user [--internal]`. */
async function operatorKey(user: string, ...flags: string[]): Promise<Made> {
  const res = await run(['keys', 'create', '--org', org, '--user', user, '--json', ...flags], { BINTEL_NAMESPACE: h.config.namespace });
  assert.is(res.code, 0, res.err);
  const k = JSON.parse(res.out);
  return { id: k.id, secret: k.secret };
}

async function child(root: Made): Promise<Made> {
  const res = await h.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.data.id, secret: res.body.data.secret };
}

const works = async (secret: string) => (await h.call('GET', '/v1/whoami', { secret })).status === 200;
/** An error body without its request id: what must not tell one 404 from another. */
const shape = (body: { error: { request_id?: string } }) => JSON.stringify({ ...body, error: { ...body.error, request_id: undefined } });
const unknownId = () => `key_${randomBytes(10).toString('hex')}`;

let alice: Made;
let alice2: Made;
let bob: Made;
let bobChild: Made;
let bobChild2: Made;
let ops: Made;

t('setup: three users of one organization, one internal key', async () => {
  alice = await operatorKey('alice');
  alice2 = await operatorKey('alice', '--name', 'second root');
  bob = await operatorKey('bob');
  ops = await operatorKey('ops', '--internal');
  bobChild = await child(bob);
  bobChild2 = await child(bob);
});

t("another user's root key, child key and an internal key are 404 exactly as an unknown id, and keep working", async () => {
  const unknown = await h.call('POST', `/v1/api-keys/${unknownId()}/rotate`, { secret: alice.secret });
  assertError(unknown, 404, 'NOT_FOUND', { field: 'key_id', issue: 'not_found' });
  for (const [what, target] of [['bob root', bob], ['bob child', bobChild], ['internal', ops]] as const) {
    const rot = await h.call('POST', `/v1/api-keys/${target.id}/rotate`, { secret: alice.secret });
    assertError(rot, 404, 'NOT_FOUND', { field: 'key_id', issue: 'not_found' });
    assert.is(shape(rot.body), shape(unknown.body), `${what}: rotate answers as an unknown id`);
    assert.not.ok(JSON.stringify(rot.body).includes('bk_live_'), `${what}: no secret`);
    const rev = await h.call('DELETE', `/v1/api-keys/${target.id}`, { secret: alice.secret });
    assertError(rev, 404, 'NOT_FOUND', { field: 'key_id', issue: 'not_found' });
    assert.is(shape(rev.body), shape((await h.call('DELETE', `/v1/api-keys/${unknownId()}`, { secret: alice.secret })).body), `${what}: revoke answers as an unknown id`);
    assert.ok(await works(target.secret), `${what}: its secret still works`);
  }
  // A second root key of the same user is another key, not one of its children.
  assertError(await h.call('POST', `/v1/api-keys/${alice2.id}/rotate`, { secret: alice.secret }), 404, 'NOT_FOUND', { field: 'key_id' });
  assert.ok(await works(alice2.secret));
});

t('a child key holds no keys:write (data-read scopes only): it manages no key, a sibling included', async () => {
  const res = await h.call('DELETE', `/v1/api-keys/${bobChild2.id}`, { secret: bobChild.secret });
  assertError(res, 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
  assert.ok(await works(bobChild2.secret));
});

t("a root key manages itself and every child key of its user (also one another root key of that user made)", async () => {
  const a2child = await child(alice2);
  const rot = await h.call('POST', `/v1/api-keys/${a2child.id}/rotate`, { secret: alice.secret });
  assert.is(rot.status, 200, JSON.stringify(rot.body));
  assert.ok(await works(rot.body.data.secret));
  assert.is((await h.call('DELETE', `/v1/api-keys/${a2child.id}`, { secret: alice.secret })).status, 200);
  assert.not.ok(await works(rot.body.data.secret));
});

t('GET /v1/api-keys lists what the caller may manage: a root its user\'s children and itself, a child itself', async () => {
  const mine = await child(alice);
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((k) => k.id).sort();
  const aliceList = await h.call('GET', '/v1/api-keys', { secret: alice.secret });
  assert.is(aliceList.status, 200, JSON.stringify(aliceList.body));
  const listed = ids(aliceList);
  assert.ok(listed.includes(alice.id) && listed.includes(mine.id));
  for (const other of [alice2, bob, bobChild, bobChild2, ops]) assert.not.ok(listed.includes(other.id), `alice does not list ${other.id}`);
  assert.is(aliceList.body.meta.total_count, listed.length);
  const bobListed = ids(await h.call('GET', '/v1/api-keys', { secret: bob.secret }));
  assert.equal(bobListed, [bob.id, bobChild.id, bobChild2.id].sort());
});

t('races across users: concurrent rotations and revocations of another user\'s keys never answer a secret, and its owner keeps control', async () => {
  const victim = await operatorKey('carol');
  const victimChild = await child(victim);
  const internal = await operatorKey('ops2', '--internal');
  const attacks = [];
  for (let i = 0; i < 10; i++) {
    for (const target of [victim, victimChild, internal]) {
      attacks.push(h.call('POST', `/v1/api-keys/${target.id}/rotate`, { secret: alice.secret }));
      attacks.push(h.call('DELETE', `/v1/api-keys/${target.id}`, { secret: bob.secret }));
    }
  }
  // The owner rotates its own keys meanwhile.
  const own = [h.call('POST', `/v1/api-keys/${victim.id}/rotate`, { secret: victim.secret }), h.call('POST', `/v1/api-keys/${victimChild.id}/rotate`, { secret: victim.secret })];
  const [results, ownResults] = await Promise.all([Promise.all(attacks), Promise.all(own)]);
  for (const r of results) {
    assertError(r, 404, 'NOT_FOUND', { field: 'key_id', issue: 'not_found' });
    assert.not.ok(JSON.stringify(r.body).includes('secret'), 'no secret in any answer to another user');
  }
  for (const r of ownResults) assert.is(r.status, 200, JSON.stringify(r.body));
  assert.ok(await works(ownResults[0].body.data.secret), "the owner's new root secret works");
  assert.ok(await works(ownResults[1].body.data.secret), "the owner's new child secret works");
  assert.ok(await works(internal.secret), 'the internal key still works');
});

t.run();
