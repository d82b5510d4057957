/**
 * The application's order (server/app.ts): a request body is read and parsed only after the
 * caller is authenticated. Property over every route that takes a body: without a key, with a
 * malformed key or with an unknown one, a malformed, oversize or non-JSON body answers 401 (the
 * body never parsed, so never 400, 413 or 415); with a valid key the same bodies answer 400
 * `malformed_json`, 413 `too_large` and 415 as before. Real server and Redis.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROUTE_GROUPS } from '../../server/app.ts';
import { mount } from '../../server/routes/route.ts';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('app');
let h: Harness;
let secret = '';

t.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '1000000' });
  secret = (await withOrg(h, { milli: 1_000_000 })).secret;
});
t.after(async () => {
  await h.close();
});

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Every authenticated route that takes a body, its path parameters filled in. */
function bodyRoutes(): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  for (const group of ROUTE_GROUPS.authenticated) {
    for (const layer of mount(h.running.services, group).stack) {
      if (typeof layer.path !== 'string') continue;
      const path = layer.path.replace(/:[A-Za-z_]+/g, 'x1');
      for (const method of layer.methods.filter((m) => BODY_METHODS.includes(m))) out.push({ method, path });
    }
  }
  return out;
}

const MALFORMED = '{"ids": ["c1", ';
/** Valid JSON over the 1 MB body limit. */
const OVERSIZE = JSON.stringify({ ids: ['c1'], pad: 'x'.repeat(1_200_000) });

t('without a valid key, no route reads the body: malformed, oversize and non-JSON bodies are 401', async () => {
  const routes = bodyRoutes();
  assert.ok(routes.length >= 20, `${routes.length} body routes`);
  const callers: Record<string, string>[] = [{}, { authorization: 'Bearer nope' }, { authorization: 'Bearer bk_live_0123456789abcdef0123456789abcdef' }];
  for (const { method, path } of routes) {
    for (const headers of callers) {
      const who = headers.authorization ?? 'no key';
      assertError(await h.call(method, path, { raw: MALFORMED, headers }), 401, 'UNAUTHORIZED', { field: 'authorization' });
      assertError(await h.call(method, path, { raw: 'ids=c1', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } }), 401, 'UNAUTHORIZED', { field: 'authorization' });
      if (who === 'no key' || path === '/v1/reports') {
        const res = await h.call(method, path, { raw: OVERSIZE, headers });
        assertError(res, 401, 'UNAUTHORIZED', { field: 'authorization' });
      }
    }
  }
});

t('with a valid key the same bodies are 400 malformed_json, 413 too_large and 415, as before', async () => {
  for (const path of ['/v1/reports', '/v1/companies/batch', '/v1/tags', '/v1/api-keys']) {
    assertError(await h.call('POST', path, { secret, raw: MALFORMED }), 400, 'VALIDATION_ERROR', { field: 'body', issue: 'malformed_json' });
    assertError(await h.call('POST', path, { secret, raw: OVERSIZE }), 413, 'PAYLOAD_TOO_LARGE', { field: 'body', issue: 'too_large' });
    assertError(await h.call('POST', path, { secret, raw: 'ids=c1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE', { field: 'content-type' });
  }
  // A path no route knows stays 404 whoever asks, body or not.
  assertError(await h.call('POST', '/v1/nowhere', { raw: MALFORMED }), 404, 'NOT_FOUND', { field: 'path', issue: 'unknown_path' });
});

t.run();
