/**
 * JWT bearer tokens: minted by `bintel jwt mint` (and the same code in-process), they do what a
 * key does (scopes, tiers, sandbox, the org's pool, rate limits per user, tags per user);
 * alg none, algorithm confusion, a wrong signature, issuer or audience, expiry, a missing claim,
 * too long a lifetime (from iat and from now), an iat in the future or an org/sub that is no id
 * are 401 with a clear issue; `bintel jwt revoke` refuses a token at once
 * in every process; with no verification key configured, tokens are refused and keys work.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync, createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { loadConfig } from '../../core/config.ts';
import { CLOCK_SKEW_S, JwtService } from '../../server/services/jwt.ts';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { awaitFreshRateWindow } from '../helpers/env.ts';
import { bintel as run } from '../helpers/cli.ts';

const t = suite('jwt');
const SECRET = 'a-long-random-hs256-secret-for-tests-only-0123456789';
const ENV = { BINTEL_JWT_SECRET: SECRET, BINTEL_JWT_ISSUER: 'https://idp.example', BINTEL_JWT_AUDIENCE: 'bintel', BINTEL_JWT_MAX_TTL_S: '7200', BINTEL_CACHE_TTL_S: '0' };
let h: Harness;
let other: Harness;
let data: DataFiles | undefined;
let sandbox: DataFiles | undefined;

/** A command run in this process (test/helpers/cli.ts), with the servers' configuration. */
const bintel = (...args: string[]) => run(args, { ...ENV, BINTEL_NAMESPACE: h.config.namespace });

const mint = (c: Partial<{ org: string; user: string; scopes: string[]; tier: 'basic' | 'advanced'; type: 'live' | 'test'; ttlS: number }> & { org: string }) =>
  h.running.services.jwt.mint({ user: 'svc', scopes: ['read:companies', 'tags:read', 'tags:write', 'credits:read'], tier: 'advanced', type: 'live', ttlS: 600, ...c });

/** A token signed by hand (for the cases `mint` refuses to make). */
async function signed(claims: Record<string, unknown>, opts: { alg?: string; key?: unknown; exp?: number; /** null: no iat claim */ iat?: number | null } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? 'HS256' }).setExpirationTime(opts.exp ?? now + 600);
  if (opts.iat !== null) jwt.setIssuedAt(opts.iat ?? now);
  return jwt.sign((opts.key ?? createSecretKey(Buffer.from(SECRET))) as never);
}
const good = { sub: 'svc', org: 'x', jti: 'j1', scope: 'read:companies', iss: 'https://idp.example', aud: 'bintel' };

t.before(async () => {
  h = await startHarness(ENV);
  other = await startHarness(ENV);
  data = await loadGenerated(h, { companies: 40, personnel: 10, brokerOffices: 4, brokers: 2, seed: 121 });
  sandbox = await loadGenerated(h, { companies: 15, personnel: 0, brokerOffices: 3, brokers: 1, seed: 122, sandbox: true });
});
t.after(async () => {
  await h.close();
  await other.close();
  await data?.cleanup();
  await sandbox?.cleanup();
});

t('a minted token does what a key does: scopes, tier, the pool, tags per user, sandbox for test tokens', async () => {
  const { org } = await withOrg(h, { milli: 1_000_000 });
  const cli = await bintel('jwt', 'mint', '--org', org, '--user', 'svc', '--scopes', 'read:companies,tags:read,tags:write', '--tier', 'basic', '--ttl', '600');
  assert.is(cli.code, 0, cli.err);
  const token = cli.out.trim();
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const who = await h.call('GET', '/v1/whoami', { secret: token });
  assert.is(who.status, 200, JSON.stringify(who.body));
  assert.is(who.body.data.organization, org);
  const before = await h.running.services.credits.balance(org);
  const list = await h.call('GET', '/v1/companies?page_size=2', { secret: token });
  assert.is(list.status, 200);
  assert.is(list.body.meta.key_tier, 'basic');
  const viaKey = await h.call('GET', '/v1/companies?page_size=3&page=1', { secret: (await h.key({ org, user: 'svc', field_tier: 'basic' })).secret });
  assert.is(viaKey.status, 200);
  const charged = Math.round(list.body.meta.credits_charged * 1000) + Math.round(viaKey.body.meta.credits_charged * 1000);
  assert.ok(charged > 0);
  assert.is(before - (await h.running.services.credits.balance(org)), charged, 'a token and a key of one organization share its pool exactly');
  assertError(await h.call('GET', '/v1/companies?fields=participants', { secret: token }), 403, 'FORBIDDEN');
  assertError(await h.call('GET', '/v1/personnel?lead_type=company', { secret: token }), 403, 'FORBIDDEN', { issue: 'missing_scope' });
  assertError(await h.call('POST', '/v1/api-keys', { secret: token, body: { scopes: ['read:companies'] } }), 403, 'FORBIDDEN');
  const tag = await h.call('POST', '/v1/tags', { secret: token, body: { entity_type: 'companies', entity_id: list.body.data[0].id, tag: 'from-jwt' } });
  assert.is(tag.status, 201, JSON.stringify(tag.body));
  const key = await h.key({ org, user: 'svc' });
  assert.ok((await h.call('GET', '/v1/tags', { secret: key.secret })).body.data.some((x: { tag: string }) => x.tag === 'from-jwt'), 'the same user sees the tag with a key');
  const test = (await mint({ org, type: 'test' })).token;
  const sand = await h.call('GET', '/v1/companies?page_size=20', { secret: test });
  assert.is(sand.status, 200);
  assert.is(sand.body.meta.credits_charged, 0);
  assert.ok(sand.body.data.length <= 15, 'sandbox rows only');
});

t('refused with a clear 401: alg none, confusion, signature, issuer, audience, expiry, missing claim, long life', async () => {
  const now = Math.floor(Date.now() / 1000);
  const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...good, exp: now + 60 })).toString('base64url')}.`;
  assertError(await h.call('GET', '/v1/whoami', { secret: none }), 401, 'UNAUTHORIZED', { issue: 'invalid_token' });
  const cases: [string, Promise<string>, string][] = [
    ['wrong secret', signed(good, { key: createSecretKey(Buffer.from('another-secret-another-secret-123456')) }), 'invalid_token'],
    ['wrong issuer', signed({ ...good, iss: 'https://evil.example' }), 'invalid_token'],
    ['wrong audience', signed({ ...good, aud: 'someone-else' }), 'invalid_token'],
    ['expired', signed(good, { iat: now - 1000, exp: now - 10 }), 'expired_token'],
    ['no jti', signed({ ...good, jti: undefined }), 'invalid_token'],
    ['no org', signed({ ...good, org: undefined }), 'invalid_token'],
    ['unknown scope', signed({ ...good, scope: 'read:everything' }), 'invalid_token'],
    ['too long a life', signed(good, { exp: now + 7200 + 600 }), 'invalid_token'],
  ];
  for (const [what, token, issue] of cases) {
    const res = await h.call('GET', '/v1/whoami', { secret: await token });
    assertError(res, 401, 'UNAUTHORIZED', { issue });
    assert.ok(res.body.error.message.length > 10, what);
  }
  // RS256 configured: an HS256 token "signed" with the public key (algorithm confusion) is refused.
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const rs = await startHarness({ BINTEL_JWT_PUBLIC_KEY: pem, BINTEL_JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() });
  try {
    const { org } = await withOrg(rs, {});
    const real = await rs.running.services.jwt.mint({ org, user: 'u', scopes: ['read:companies'], tier: 'basic', type: 'live', ttlS: 60 });
    assert.is((await rs.call('GET', '/v1/whoami', { secret: real.token })).status, 200, 'RS256 token accepted');
    const confused = await signed({ ...good, org }, { key: createSecretKey(Buffer.from(pem)) });
    assertError(await rs.call('GET', '/v1/whoami', { secret: confused }), 401, 'UNAUTHORIZED', { issue: 'invalid_token' });
  } finally {
    await rs.close();
  }
});

t('bintel jwt revoke: refused at once in every process; the rate limit counts per user', async () => {
  const { org } = await withOrg(h, {});
  const minted = await bintel('jwt', 'mint', '--org', org, '--user', 'svc', '--json');
  assert.is(minted.code, 0, minted.err);
  const { token, jti, exp } = JSON.parse(minted.out);
  assert.ok(exp > Date.now() / 1000);
  assert.is((await other.call('GET', '/v1/whoami', { secret: token })).status, 200);
  const revoked = await bintel('jwt', 'revoke', jti, '--exp', String(exp));
  assert.is(revoked.code, 0, revoked.err);
  assertError(await h.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  assertError(await other.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  const limited = await startHarness({ ...ENV, BINTEL_RATE_LIMIT_PER_MIN: '3' });
  try {
    // A user of its own (the revoked token above was svc's, counted in svc's window).
    const a = (await mint({ org, user: 'limited' })).token;
    const b = (await mint({ org, user: 'limited' })).token;
    const c = (await mint({ org, user: 'limited2' })).token;
    await awaitFreshRateWindow();
    const sa = [];
    for (let i = 0; i < 4; i++) sa.push((await limited.call('GET', '/v1/whoami', { secret: a })).status);
    assert.equal(sa, [200, 200, 200, 429]);
    // The window is the user's (it was the token's): another token of the user shares it, another user's has its own.
    assert.is((await limited.call('GET', '/v1/whoami', { secret: b })).status, 429, "another token of the user shares the user's window");
    assert.is((await limited.call('GET', '/v1/whoami', { secret: c })).status, 200, 'a token of another user has its own window');
  } finally {
    await limited.close();
  }
});

t('a verified token is kept until its exp: repeats skip the signature check, a revoke still refuses it at once, and an expired one is 401 expired_token', async () => {
  const { org } = await withOrg(h, {});
  const jwt = other.running.services.jwt;
  // Lifetimes leave room for a busy machine (a token that expires between mint and call would read as a failure here).
  const { token, jti, exp } = await mint({ org, ttlS: 30 });
  const hits = jwt.cacheHits;
  for (let i = 0; i < 3; i++) assert.is((await other.call('GET', '/v1/whoami', { secret: token })).status, 200);
  assert.is(jwt.cacheHits - hits, 2, 'the first call verified the token, the next two were answered from memory');
  // A changed signature is another token: never answered from memory.
  assertError(await other.call('GET', '/v1/whoami', { secret: `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}` }), 401, 'UNAUTHORIZED', { issue: 'invalid_token' });
  await h.running.services.keys.revokeToken(jti, exp);
  assertError(await other.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  const fresh = await mint({ org, ttlS: 3 });
  assert.is((await other.call('GET', '/v1/whoami', { secret: fresh.token })).status, 200);
  while (Date.now() / 1000 <= fresh.exp) await new Promise((r) => setTimeout(r, 100));
  assertError(await other.call('GET', '/v1/whoami', { secret: fresh.token }), 401, 'UNAUTHORIZED', { issue: 'expired_token' });
});

t('a token revoked before its post-dated validity starts stays revoked until its exp (bintel jwt revoke <token>)', async () => {
  const max = 2;
  const short = { ...ENV, BINTEL_JWT_MAX_TTL_S: String(max) };
  const s = await startHarness(short);
  try {
    const { org } = await withOrg(s, {});
    const now = Math.floor(Date.now() / 1000);
    // No iat and an exp 5 s ahead: refused now (it lives longer than 2 s from now), valid from exp - 2 s.
    const token = await signed({ ...good, org, jti: `post-${now}` }, { iat: null, exp: now + 5 });
    assertError(await s.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'invalid_token' });
    const revoked = await run(['jwt', 'revoke', token], { ...short, BINTEL_NAMESPACE: s.config.namespace });
    assert.is(revoked.code, 0, revoked.err);
    // Past the longest lifetime from the revocation, inside the token's own validity.
    while (Date.now() / 1000 < now + max + 1.5) await new Promise((r) => setTimeout(r, 100));
    assertError(await s.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  } finally {
    await s.close();
  }
});

t('POST /v1/tokens/revoke: one token of the caller\'s user until its exp, or every token of the user issued so far; another user\'s token is 404', async () => {
  const { org, secret } = await withOrg(h, { user: 'svc' });
  const one = await mint({ org });
  const two = await mint({ org });
  const noIat = await signed({ ...good, org, jti: `no-iat-${Date.now()}` }, { iat: null });
  const stranger = await mint({ org, user: 'someone-else' });
  for (const t of [one, two, stranger]) assert.is((await h.call('GET', '/v1/whoami', { secret: t.token })).status, 200);

  const single = await h.call('POST', '/v1/tokens/revoke', { secret, body: { token: one.token } });
  assert.is(single.status, 200, JSON.stringify(single.body));
  assert.is(single.body.data.jti, one.jti);
  assertError(await other.call('GET', '/v1/whoami', { secret: one.token }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  assert.is((await other.call('GET', '/v1/whoami', { secret: two.token })).status, 200, 'only that token');

  assertError(await h.call('POST', '/v1/tokens/revoke', { secret, body: { token: stranger.token } }), 404, 'NOT_FOUND', { field: 'token', issue: 'not_found' });
  assertError(await h.call('POST', '/v1/tokens/revoke', { secret, body: { token: 'a.b.c' } }), 400, 'VALIDATION_ERROR', { field: 'token' });
  assertError(await h.call('POST', '/v1/tokens/revoke', { secret, body: {} }), 400, 'VALIDATION_ERROR');
  assertError(await h.call('POST', '/v1/tokens/revoke', { secret, body: { token: two.token, all: true } }), 400, 'VALIDATION_ERROR');

  const all = await h.call('POST', '/v1/tokens/revoke', { secret, body: { all: true } });
  assert.is(all.status, 200, JSON.stringify(all.body));
  assert.is(all.body.data.user, 'svc');
  for (const t of [two.token, noIat]) assertError(await other.call('GET', '/v1/whoami', { secret: t }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  assert.is((await other.call('GET', '/v1/whoami', { secret: stranger.token })).status, 200, "another user's tokens are untouched");
  // A token issued after the revocation (a later second) is accepted.
  while (Date.now() / 1000 < Date.parse(all.body.data.revoked_before) / 1000 + 1) await new Promise((r) => setTimeout(r, 50));
  assert.is((await other.call('GET', '/v1/whoami', { secret: (await mint({ org })).token })).status, 200);
});

t('bintel jwt revoke-user refuses every token of the user issued so far; a JWT manages no key', async () => {
  const { org } = await withOrg(h, { user: 'svc' });
  const token = (await mint({ org, scopes: ['keys:read', 'keys:write'] })).token;
  const root = await h.key({ org, user: 'svc' });
  const child = await h.call('POST', '/v1/api-keys', { secret: root.secret, body: { scopes: ['read:companies'] } });
  assert.is(child.status, 201);
  // A token is no key record: its user's keys are unknown ids to it.
  assertError(await h.call('POST', `/v1/api-keys/${child.body.data.id}/rotate`, { secret: token }), 404, 'NOT_FOUND', { field: 'key_id' });
  assert.equal((await h.call('GET', '/v1/api-keys', { secret: token })).body.data, []);
  const res = await bintel('jwt', 'revoke-user', '--org', org, '--user', 'svc');
  assert.is(res.code, 0, res.err);
  assertError(await other.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'revoked_token' });
  assert.is((await other.call('GET', '/v1/whoami', { secret: root.secret })).status, 200, 'keys are not tokens');
});

t('no verification key configured: tokens refused with a clear 401, keys work as ever', async () => {
  const plain = await startHarness({});
  try {
    const { org, secret } = await withOrg(plain, {});
    const token = (await mint({ org })).token;
    assertError(await plain.call('GET', '/v1/whoami', { secret: token }), 401, 'UNAUTHORIZED', { issue: 'tokens_not_accepted' });
    assert.is((await plain.call('GET', '/v1/whoami', { secret })).status, 200);
  } finally {
    await plain.close();
  }
});

t('a token lives at most BINTEL_JWT_MAX_TTL_S from now: an iat in the future (beyond the clock skew) or an exp too far ahead is 401', async () => {
  const { org } = await withOrg(h, {});
  const max = 7200;
  const now = Math.floor(Date.now() / 1000);
  const claims = { ...good, org };
  // Today's hole: iat an hour ahead, exp - iat within the limit, exp - now beyond it.
  const refused: [string, Promise<string>][] = [
    ['iat an hour ahead', signed(claims, { iat: now + 3600, exp: now + 3600 + 600 })],
    ['iat ahead, the whole lifetime after it', signed(claims, { iat: now + 5000, exp: now + 5000 + max })],
    ['iat within the skew, exp beyond max from now', signed(claims, { iat: now + CLOCK_SKEW_S - 10, exp: now + max + CLOCK_SKEW_S - 20 })],
    ['no iat, exp beyond max from now', signed(claims, { iat: null, exp: now + max + 30 })],
  ];
  for (const [what, token] of refused) {
    const res = await h.call('GET', '/v1/whoami', { secret: await token });
    assert.is(res.status, 401, `${what}: ${JSON.stringify(res.body)}`);
    assertError(res, 401, 'UNAUTHORIZED', { issue: 'invalid_token' });
    assert.match(res.body.error.message, /iat|lives longer/, what);
  }
  // A clock a little ahead of ours is not an attack: iat within the skew is accepted.
  const within = await signed(claims, { iat: now + CLOCK_SKEW_S - 20, exp: now + 600 });
  assert.is((await h.call('GET', '/v1/whoami', { secret: within })).status, 200);
  // bintel jwt mint never makes a token the server refuses, even at the longest lifetime.
  const longest = await bintel('jwt', 'mint', '--org', org, '--user', 'svc', '--ttl', String(max));
  assert.is(longest.code, 0, longest.err);
  assert.is((await h.call('GET', '/v1/whoami', { secret: longest.out.trim() })).status, 200);
  assert.is((await h.call('GET', '/v1/whoami', { secret: (await mint({ org, ttlS: max })).token })).status, 200);
});

t('org and sub must be ids as key records have them; mint refuses others', async () => {
  const { org } = await withOrg(h, {});
  for (const [claim, value] of [['org', 'has space'], ['org', 'a:b'], ['org', '-leading'], ['org', 'x'.repeat(65)], ['sub', 'a/b'], ['sub', 'line\nbreak'], ['sub', '{slot}']]) {
    const res = await h.call('GET', '/v1/whoami', { secret: await signed({ ...good, org, [claim]: value }) });
    assertError(res, 401, 'UNAUTHORIZED', { issue: 'invalid_token' });
    assert.match(res.body.error.message, new RegExp(claim), `${claim}=${JSON.stringify(value)}`);
  }
  assert.is((await h.call('GET', '/v1/whoami', { secret: await signed({ ...good, org, sub: 'ops.bot@acme-1_x' }) })).status, 200);
  const bad = await bintel('jwt', 'mint', '--org', 'has space', '--user', 'svc');
  assert.is.not(bad.code, 0);
  assert.match(bad.err, /org/);
  await mint({ org: 'a:b' }).then(
    () => assert.unreachable('mint made a token the server refuses'),
    (err: Error) => assert.match(err.message, /org/),
  );
});

t('a public key or JWKS without issuer and audience starts with a warning naming what is missing', () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const warnings = (env: NodeJS.ProcessEnv): string[] => {
    const out: string[] = [];
    new JwtService(loadConfig(env).jwt, { warn: (_o: object, msg: string) => out.push(msg) });
    return out;
  };
  const both = warnings({ BINTEL_JWT_PUBLIC_KEY: pem });
  assert.is(both.length, 1);
  assert.match(both[0], /BINTEL_JWT_ISSUER/);
  assert.match(both[0], /BINTEL_JWT_AUDIENCE/);
  const noAudience = warnings({ BINTEL_JWT_PUBLIC_KEY: pem, BINTEL_JWT_ISSUER: 'https://idp.example' });
  assert.is(noAudience.length, 1);
  assert.not.match(noAudience[0], /BINTEL_JWT_ISSUER/);
  assert.match(noAudience[0], /BINTEL_JWT_AUDIENCE/);
  assert.equal(warnings({ BINTEL_JWT_PUBLIC_KEY: pem, BINTEL_JWT_ISSUER: 'https://idp.example', BINTEL_JWT_AUDIENCE: 'bintel' }), []);
  assert.equal(warnings({ BINTEL_JWT_SECRET: SECRET }), [], 'an HS256 secret is bintel\'s own');
  assert.equal(warnings({}), []);
});

t.run();
