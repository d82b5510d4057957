/**
 * Races of the key lifecycle, driven over HTTP against two servers that share one Redis (or one
 * Redis Cluster): used by test/server/key-races.test.ts and the cluster suite.
 *
 * The property checked after every round, by calling `GET /v1/whoami` with every secret the
 * API ever returned for the key: at most one of them works; none works once a revoke has
 * answered 200; the one that works is the one the last successful rotation returned.
 */
import * as assert from 'uvu/assert';
import type { Harness } from '../server/harness.ts';

type Res = Awaited<ReturnType<Harness['call']>>;

const whoami = (h: Harness, secret: string) => h.call('GET', '/v1/whoami', { secret });

/** The secrets of `secrets` that authenticate now, asked of both servers (they must agree). */
async function working(a: Harness, b: Harness, secrets: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of secrets) {
    const [x, y] = await Promise.all([whoami(a, s), whoami(b, s)]);
    assert.is(x.status, y.status, 'both servers answer a secret alike');
    assert.ok(x.status === 200 || x.status === 401, `whoami: ${x.status} ${JSON.stringify(x.body)}`);
    if (x.status === 200) out.push(s);
  }
  return out;
}

/**
 * A rotation's answer: its secret when it took effect (200), else a 409 naming key_id, or, for
 * a key rotating itself, a 401 rotated_key (the other rotation had already replaced its secret).
 */
function rotated(res: Res, self: boolean): string | null {
  if (res.status === 200) return res.body.data.secret as string;
  if (self && res.status === 401) {
    assert.is(res.body.error.details[0].issue, 'rotated_key');
    return null;
  }
  assert.is(res.status, 409, `rotate: ${res.status} ${JSON.stringify(res.body)}`);
  assert.ok(res.body.error.details.some((d: { field: string }) => d.field === 'key_id'), JSON.stringify(res.body));
  return null;
}

/**
 * Even rounds race on a child key of the root; odd ones on a second root key of the organization,
 * which rotates and revokes itself (a root key manages no other root key).
 */
async function keyOfRound(a: Harness, root: { org: string; secret: string }, round: number): Promise<{ id: string; secret: string; self: boolean }> {
  if (round % 2) {
    const other = await a.key({ org: root.org, user: 'racer' });
    return { id: other.key.id, secret: other.secret, self: true };
  }
  const res = await a.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'], name: 'race' } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.data.id, secret: res.body.data.secret, self: false };
}

/**
 * `rounds` rounds, each on a fresh key of the root's organization: two concurrent rotations
 * (one through each server), then a rotation racing the root's revocation of the key; the
 * property is checked after each step. Returns how many rotations took effect and were refused.
 */
export async function raceRotations(a: Harness, b: Harness, root: { org: string; secret: string }, rounds: number): Promise<{ rotations: number; conflicts: number }> {
  const rootSecret = root.secret;
  let rotations = 0;
  let conflicts = 0;
  for (let round = 0; round < rounds; round++) {
    const key = await keyOfRound(a, root, round);
    const path = `/v1/api-keys/${key.id}/rotate`;
    const all = [key.secret];

    const by = key.self ? key.secret : rootSecret;
    const pair = (await Promise.all([a.call('POST', path, { secret: by }), b.call('POST', path, { secret: by })])).map((r) => rotated(r, key.self));
    const won = pair.filter((s): s is string => s !== null);
    assert.ok(won.length >= 1, 'at least one of two concurrent rotations takes effect');
    rotations += won.length;
    conflicts += pair.length - won.length;
    all.push(...won);
    const live = await working(a, b, all);
    assert.is(live.length, 1, `round ${round}: after two concurrent rotations exactly one secret works, got ${live.length}`);
    assert.ok(won.includes(live[0]), 'the working secret is one a rotation returned');

    // A rotation racing a revoke: by the root for its child; by the key itself (its working secret) for a root key.
    const by2 = key.self ? live[0] : rootSecret;
    const [rot, rev] = await Promise.all([a.call('POST', path, { secret: by2 }), b.call('DELETE', `/v1/api-keys/${key.id}`, { secret: by2 })]);
    if (rot.status === 200) all.push(rot.body.data.secret);
    else assert.ok(rot.status === 409 || rot.status === 401, `rotate racing revoke: ${rot.status} ${JSON.stringify(rot.body)}`);
    // A key revoking itself may find its secret already rotated away by the racing call (401 rotated_key): it revokes with the new one.
    const revoked = rev.status === 401 && key.self && rot.status === 200 ? await b.call('DELETE', `/v1/api-keys/${key.id}`, { secret: rot.body.data.secret }) : rev;
    assert.is(revoked.status, 200, JSON.stringify(revoked.body));
    assert.is(revoked.body.data.status, 'revoked');
    assert.equal(await working(a, b, all), [], `round ${round}: no secret works after the revoke answered 200`);
    if (!key.self) {
      const listed = await a.call('GET', '/v1/api-keys', { secret: rootSecret });
      assert.is(listed.body.data.find((k: { id: string }) => k.id === key.id)?.status, 'revoked', 'the key is listed as revoked');
    }
  }
  return { rotations, conflicts };
}
