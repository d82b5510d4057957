/**
 * CORS for browser clients (BINTEL_CORS_ORIGINS): off by default (no Access-Control-* header
 * for any origin); when origins are listed, a preflight from one of them is answered 204 without
 * a key, and every answer to it (successes and error envelopes alike) names it in
 * Access-Control-Allow-Origin and exposes the headers the client reads; any other origin gets
 * nothing. A malformed origin stops the configuration.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../core/config.ts';
import { startHarness, type Harness } from './harness.ts';

const t = suite('cors');
const LISTED = 'https://app.example';
const OTHER = 'https://evil.example';
let off: Harness;
let on: Harness;
let secret = '';

t.before(async () => {
  off = await startHarness();
  on = await startHarness({ BINTEL_CORS_ORIGINS: `${LISTED}, http://localhost:5173` });
  ({ secret } = await on.key({ org: 'org-cors', scopes: ['read:companies'] }));
});
t.after(async () => {
  await off?.close();
  await on?.close();
});

const preflight = (h: Harness, origin: string, path = '/v1/whoami') =>
  fetch(h.url + path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, x-request-id' } });

t('off by default: no Access-Control-* header for any origin, preflight or not', async () => {
  const pre = await preflight(off, LISTED);
  assert.is(pre.headers.get('access-control-allow-origin'), null);
  const { secret: key } = await off.key({ org: 'org-cors-off', scopes: ['read:companies'] });
  const res = await fetch(`${off.url}/v1/whoami`, { headers: { origin: LISTED, authorization: `Bearer ${key}` } });
  assert.is(res.status, 200);
  for (const [name] of res.headers) assert.not.ok(name.startsWith('access-control-'), name);
});

t('a preflight from a listed origin: 204 without a key, the methods and headers a client sends', async () => {
  const pre = await preflight(on, LISTED);
  assert.is(pre.status, 204);
  assert.is(pre.headers.get('access-control-allow-origin'), LISTED);
  assert.match(pre.headers.get('vary') ?? '', /origin/i);
  const methods = (pre.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
  for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) assert.ok(methods.includes(m), `${m} in ${methods}`);
  const headers = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
  for (const h of ['authorization', 'content-type', 'idempotency-key', 'if-match', 'if-none-match', 'x-request-id']) assert.ok(headers.includes(h), `${h} in ${headers}`);
  assert.ok(Number(pre.headers.get('access-control-max-age')) > 0);
  assert.is(pre.headers.get('access-control-allow-credentials'), null, 'bearer tokens, never cookies');
  // The second listed origin too, and a path that does not exist (the browser asks before it knows).
  const second = await preflight(on, 'http://localhost:5173', '/v1/companies');
  assert.is(second.status, 204);
  assert.is(second.headers.get('access-control-allow-origin'), 'http://localhost:5173');
});

t('answers to a listed origin name it and expose what the client reads; errors too', async () => {
  const res = await on.call('GET', '/v1/whoami', { secret, headers: { origin: LISTED } });
  assert.is(res.status, 200);
  assert.is(res.headers.get('access-control-allow-origin'), LISTED);
  assert.match(res.headers.get('vary') ?? '', /origin/i);
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
  for (const h of ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'etag', 'location', 'x-export-rows']) assert.ok(exposed.includes(h), `${h} in ${exposed}`);
  const denied = await on.call('GET', '/v1/whoami', { secret: 'bk_live_nope', headers: { origin: LISTED } });
  assert.is(denied.status, 401);
  assert.is(denied.headers.get('access-control-allow-origin'), LISTED, 'a browser can read the error envelope');
  const missing = await on.call('GET', '/v1/nowhere', { headers: { origin: LISTED } });
  assert.is(missing.status, 404);
  assert.is(missing.headers.get('access-control-allow-origin'), LISTED);
});

t('an origin not listed gets no Access-Control-* header, and its preflight is not answered as one', async () => {
  const pre = await preflight(on, OTHER);
  assert.is(pre.headers.get('access-control-allow-origin'), null);
  assert.is.not(pre.status, 204);
  const res = await on.call('GET', '/v1/whoami', { secret, headers: { origin: OTHER } });
  assert.is(res.status, 200);
  for (const [name] of res.headers) assert.not.ok(name.startsWith('access-control-'), name);
  // A listed origin differing only in case of the scheme's host still matches (origins are compared as the browser sends them: lowercase).
  const caseOnly = await on.call('GET', '/v1/whoami', { secret, headers: { origin: 'https://APP.example' } });
  assert.is(caseOnly.headers.get('access-control-allow-origin'), null, 'browsers send origins lowercase; another spelling is another origin');
});

t('BINTEL_CORS_ORIGINS: exact origins only; a wildcard, a path or a bare host stops the configuration', () => {
  assert.equal(loadConfig({ BINTEL_CORS_ORIGINS: '' }).corsOrigins, []);
  assert.equal(loadConfig({}).corsOrigins, []);
  assert.equal(loadConfig({ BINTEL_CORS_ORIGINS: 'https://a.example,http://localhost:8080/' }).corsOrigins, ['https://a.example', 'http://localhost:8080']);
  for (const bad of ['*', 'a.example', 'https://a.example/app', 'ftp://a.example', 'https://a.example?x=1']) {
    assert.throws(() => loadConfig({ BINTEL_CORS_ORIGINS: bad }), /BINTEL_CORS_ORIGINS/, bad);
  }
});

t.run();
