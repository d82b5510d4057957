/**
 * The response checker (test/helpers/contract.ts) itself: it passes a documented response,
 * and fails an undocumented status, a wrong content type, a missing required member, an extra
 * member of a closed schema and an error code outside the catalogue, naming operation, status
 * and the first mismatch; against a deliberately broken document it fails a real response.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ContractChecker, contract } from '../helpers/contract.ts';
import { sharedDocument } from '../../server/openapi/document.ts';
import { startHarness, type Harness } from './harness.ts';

const t = suite('contract');
let h: Harness;

t.before(async () => {
  h = await startHarness();
});
t.after(async () => h.close());

const json = 'application/json; charset=utf-8';
const live = { ok: true, data: { status: 'alive', uptime_s: 3, pid: 42 }, meta: { credits_charged: 0 } };
const notFound = (code: string) => ({ ok: false, error: { code, message: 'x', details: [], request_id: 'req_1' }, meta: { credits_charged: 0 } });

t('a documented response passes; the literal template wins over a parameter', () => {
  const c = contract();
  assert.is(c.check({ method: 'GET', path: '/v1/health/live', status: 200, contentType: json, body: live }), null);
  assert.is(c.route('GET', '/v1/companies/lookup?domain=x')?.template, '/v1/companies/lookup');
  assert.is(c.route('GET', '/v1/companies/export.csv')?.template, '/v1/companies/export.csv');
  assert.is(c.route('GET', '/v1/companies/cmp_1')?.template, '/v1/companies/{id}');
  assert.is(c.route('HEAD', '/v1/companies/export.csv')?.method, 'get');
  assert.is(c.route('GET', '/v1/no-such-thing'), undefined);
  assert.is(c.route('GET', '/v1/companies/batch'), undefined, 'the batch path has no GET, it is no detail read');
});

t('an undocumented status fails, naming operation and status', () => {
  const problem = contract().check({ method: 'GET', path: '/v1/health/live', status: 418, contentType: json, body: live });
  assert.match(String(problem), 'GET /v1/health/live answered 418: status not documented');
});

t('a wrong content type fails', () => {
  const problem = contract().check({ method: 'GET', path: '/v1/companies/export.csv', status: 200, contentType: json, body: live });
  assert.match(String(problem), 'GET /v1/companies/export.csv answered 200: content type application/json; charset=utf-8 not documented');
});

t('a missing required member fails, naming it', () => {
  const problem = contract().check({ method: 'GET', path: '/v1/health/live', status: 200, contentType: json, body: { ok: true, data: {} } });
  assert.match(String(problem), "must have required property 'meta'");
});

t('an extra member of a closed schema fails (the writing job is closed)', () => {
  const job = { id: `wj_${'0'.repeat(32)}`, status: 'queued', events: [], eventCount: 0, billing: {} };
  const c = contract();
  const path = `/v1/writing-jobs/${job.id}`;
  assert.is(c.check({ method: 'GET', path, status: 200, contentType: json, body: { ok: true, data: job, meta: { credits_charged: 0 } } }), null);
  const problem = c.check({ method: 'GET', path, status: 200, contentType: json, body: { ok: true, data: { ...job, surprise: 1 }, meta: { credits_charged: 0 } } });
  assert.match(String(problem), 'GET /v1/writing-jobs/{job_id} answered 200');
  assert.match(String(problem), 'must NOT have additional properties');
});

t('an error code outside the status of the catalogue fails', () => {
  const c = contract();
  assert.is(c.check({ method: 'GET', path: '/v1/companies/cmp_1', status: 404, contentType: json, body: notFound('NOT_FOUND') }), null);
  assert.match(String(c.check({ method: 'GET', path: '/v1/companies/cmp_1', status: 404, contentType: json, body: notFound('NOT_A_CODE') })), '/error/code must be equal to one of the allowed values');
});

t('a deliberately broken schema makes a real response fail', async () => {
  const broken = structuredClone(sharedDocument()) as any;
  const data = broken.paths['/v1/health/live'].get.responses['200'].content['application/json'].schema.properties.data;
  data.required = ['status', 'hostname'];
  const strict = new ContractChecker(broken);
  const res = await h.call('GET', '/v1/health/live');
  assert.is(res.status, 200);
  const observed = { method: 'GET', path: '/v1/health/live', status: res.status, contentType: res.headers.get('content-type'), body: res.body };
  assert.is(contract().check(observed), null, 'the real document accepts it');
  assert.throws(() => strict.assert(observed), /GET \/v1\/health\/live answered 200: body does not match the document: \/data must have required property 'hostname'/);
});

t.run();
