/**
 * The input contract: what the OpenAPI document forbids, the server refuses (400 naming the
 * field), and what it requires, the server requires. Properties over every operation of the
 * published document where they can be stated generally (required parameters, comma lists,
 * enumerated values, the Idempotency-Key header), and the cases a bad-input run found accepted:
 * empty list items, padded enum values, a null optional string, a body nested past any
 * reasonable depth (a 500 before), and a HEAD that ran the paid read for free.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('input-contract');
let h: Harness;
let data: DataFiles | undefined;
let org = '';
let secret = '';
let doc: any;

/** A path template made callable: `{id}` becomes an id that exists nowhere (the parameters are read first). */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x0');

/** GET operations of the document with their parameters. */
function getOperations(): { path: string; params: any[] }[] {
  return Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) => (item.get ? [{ path, params: (item.get.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p)) }] : []));
}

/** JSON text of objects nested `depth` deep (as text: JSON.stringify itself cannot write it). */
const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

t.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '100000', BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  data = await loadGenerated(h, { companies: 120, personnel: 60, brokerOffices: 10, brokers: 4, seed: 7 });
  const o = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000, scopes: undefined });
  org = o.org;
  secret = o.secret;
  doc = (await h.call('GET', '/v1/openapi.json')).body;
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

t('every required query parameter of every GET operation is required by the server', async () => {
  let checked = 0;
  for (const op of getOperations()) {
    const required = op.params.filter((p) => p.in === 'query' && p.required).map((p) => p.name);
    if (!required.length) continue;
    const res = await h.call('GET', concrete(op.path), { secret });
    assert.is(res.status, 400, `${op.path} without ${required.join(', ')} → ${res.status}`);
    const named = new Set(res.body.error.details.map((d: { field: string }) => d.field));
    for (const name of required) assert.ok(named.has(name), `${op.path}: the 400 names ${name} (${JSON.stringify(res.body.error.details)})`);
    checked++;
  }
  assert.ok(checked >= 4, `operations with required query parameters checked: ${checked}`);
});

/** Values a parameter's schema forbids (one per documented constraint), with what each breaks. */
function forbidden(schema: any): [string, string][] {
  const out: [string, string][] = [];
  const item = schema.type === 'array' ? schema.items : schema;
  if (!item) return out;
  if (item.type === 'integer' || item.type === 'number') {
    out.push(['abc', 'type']);
    if (item.type === 'integer') out.push(['1.5', 'integer']);
    if (item.minimum !== undefined) out.push([String(item.minimum - 1), 'minimum']);
    if (item.maximum !== undefined) out.push([String(item.maximum + 1), 'maximum']);
  }
  if (item.type === 'boolean') out.push(['yes', 'boolean']);
  if (Array.isArray(item.enum)) out.push(['no-such-value', 'enum']);
  if (item.type === 'string' && item.maxLength !== undefined) out.push(['x'.repeat(item.maxLength + 1), 'maxLength']);
  if (item.type === 'string' && item.minLength && schema.type !== 'array') out.push(['', 'minLength']);
  return out;
}

t('every documented constraint of every query parameter of every GET operation is enforced (400 naming it)', async () => {
  const accepted: string[] = [];
  let checked = 0;
  for (const op of getOperations()) {
    const required = op.params.filter((p) => p.in === 'query' && p.required);
    for (const p of op.params.filter((x) => x.in === 'query' && x.schema && x.style !== 'deepObject')) {
      for (const [value, rule] of forbidden(p.schema)) {
        // The other required parameters given valid values, so only this one can be wrong.
        const others = required.filter((r) => r.name !== p.name).map((r) => `${r.name}=${encodeURIComponent(r.schema.enum?.[0] ?? 'ab')}`);
        // A lookup takes exactly one key (the document cannot mark one of three required).
        if (op.path.endsWith('/lookup') && !['domain', 'name', 'ein'].includes(p.name) && !others.some((o) => o.startsWith('name='))) others.push('name=acme');
        const qs = [`${p.name}=${encodeURIComponent(value)}`, ...others].join('&');
        const res = await h.call('GET', `${concrete(op.path)}?${qs}`, { secret });
        checked++;
        if (res.status !== 400 || !res.body.error.details.some((d: { field: string }) => d.field === p.name || d.field.startsWith(`${p.name}.`))) accepted.push(`${op.path}?${p.name}=${value.slice(0, 20)} (${rule}) → ${res.status} ${JSON.stringify(res.body.error?.details ?? "").slice(0, 200)}`);
      }
    }
  }
  assert.ok(checked > 100, `checked ${checked}`);
  assert.equal(accepted, [], accepted.join('\n'));
});

/** The JSON request body of an operation: its schema (references resolved) and its example. */
function bodyOf(op: any): { schema: any; example: any } | null {
  const media = op.requestBody?.content?.['application/json'];
  if (!media) return null;
  const resolve = (x: any): any => (x?.$ref ? resolve(doc.components.schemas[x.$ref.split('/').pop()]) : x);
  return { schema: resolve(media.schema), example: media.example ?? Object.values(media.examples ?? {})[0]?.['value' as never] };
}

/** Member values a property's schema forbids, with the rule each breaks. */
function forbiddenMembers(schema: any): [unknown, string][] {
  const out: [unknown, string][] = [];
  if (!schema || schema.oneOf || schema.anyOf || schema.type === undefined) return out;
  const types = [schema.type].flat();
  if (!types.includes('null')) out.push([null, 'null']);
  if (!types.includes('string')) out.push(['text', 'type']);
  else out.push([12, 'type']);
  if (Array.isArray(schema.enum)) out.push(['no-such-value', 'enum']);
  if (schema.maxLength !== undefined) out.push(['x'.repeat(schema.maxLength + 1), 'maxLength']);
  if (schema.minimum !== undefined) out.push([schema.minimum - 1, 'minimum']);
  if (schema.maximum !== undefined) out.push([schema.maximum + 1, 'maximum']);
  if (schema.maxItems !== undefined && schema.items) out.push([Array.from({ length: schema.maxItems + 1 }, (_, i) => (schema.items.type === 'integer' || schema.items.type === 'number' ? i : `v${i}`)), 'maxItems']);
  return out;
}

t('every documented constraint of every top-level body member is enforced (400 naming it, nothing written)', async () => {
  const accepted: string[] = [];
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const body = bodyOf(op);
      if (!body?.example || typeof body.example !== 'object' || Array.isArray(body.example) || !body.schema?.properties) continue;
      for (const [name, member] of Object.entries(body.schema.properties as Record<string, any>)) {
        for (const [value, rule] of forbiddenMembers(member)) {
          const res = await h.call(method.toUpperCase(), concrete(path), { secret, body: { ...body.example, [name]: value } });
          if (path.includes('{') && res.status === 404) continue;
          checked++;
          const named = res.status === 400 && res.body.error.details.some((d: { field: string }) => d.field === name || d.field.startsWith(`${name}.`) || d.field.startsWith(`${name}[`));
          if (!named) accepted.push(`${method.toUpperCase()} ${path} ${name}=${JSON.stringify(value).slice(0, 24)} (${rule}) → ${res.status} ${JSON.stringify(res.body?.error?.details ?? '').slice(0, 160)}`);
        }
      }
    }
  }
  assert.ok(checked > 40, `checked ${checked}`);
  assert.equal(accepted, [], accepted.join('\n'));
});

t('personnel autocomplete: the document and the server agree on lead_type', async () => {
  const op = getOperations().find((o) => o.path === '/v1/personnel/autocomplete')!;
  const p = op.params.find((x) => x.name === 'lead_type');
  const res = await h.call('GET', '/v1/personnel/autocomplete?query=jo', { secret });
  if (p.required) assertError(res, 400, 'VALIDATION_ERROR', { field: 'lead_type', issue: 'missing_required' });
  else assert.is(res.status, 200, JSON.stringify(res.body));
});

t('comma lists: an empty item is refused on every list parameter of the list operations', async () => {
  let checked = 0;
  for (const op of getOperations().filter((o) => /^\/v1\/[a-z-]+$/.test(o.path) && o.params.some((p) => p.name === 'fields'))) {
    for (const p of op.params.filter((x) => x.in === 'query' && x.schema?.type === 'array' && Array.isArray(x.schema.items?.enum))) {
      const v = p.schema.items.enum[0];
      const side = op.path === '/v1/personnel' ? '&lead_type=company' : '';
      for (const value of [`${v},,${v}`, `${v},`]) {
        const res = await h.call('GET', `${op.path}?${p.name}=${encodeURIComponent(value)}${side}`, { secret });
        assertError(res, 400, 'VALIDATION_ERROR', { field: p.name, issue: 'empty_item' });
      }
      checked++;
    }
  }
  assert.ok(checked >= 8, `list parameters checked: ${checked}`);
});

t('enumerated values are taken as listed: one padded with spaces is refused', async () => {
  let checked = 0;
  for (const op of getOperations().filter((o) => /^\/v1\/[a-z-]+$/.test(o.path) && o.params.some((p) => p.name === 'fields'))) {
    for (const p of op.params.filter((x) => x.in === 'query' && (Array.isArray(x.schema?.enum) || Array.isArray(x.schema?.items?.enum)))) {
      if (p.name === 'lead_type') continue;
      const v = (p.schema.enum ?? p.schema.items.enum)[0];
      const side = op.path === '/v1/personnel' ? '&lead_type=company' : '';
      const res = await h.call('GET', `${op.path}?${p.name}=${encodeURIComponent(` ${v} `)}${side}`, { secret });
      assert.is(res.status, 400, `${op.path}?${p.name}=' ${v} ' → ${res.status}`);
      assert.ok(res.body.error.details.some((d: { field: string }) => d.field === p.name), `${op.path}: names ${p.name}: ${JSON.stringify(res.body.error.details)}`);
      checked++;
    }
  }
  assert.ok(checked >= 8, `enumerated parameters checked: ${checked}`);
});

t('a null optional string member is refused (the document types it a string)', async () => {
  const res = await h.call('POST', '/v1/reports', { secret, body: { endpoint: 'GET /v1/companies', message: 'x', request_id: null } });
  assertError(res, 400, 'VALIDATION_ERROR', { field: 'request_id', issue: 'invalid_type' });
  assert.is((await h.call('GET', '/v1/reports', { secret })).body.data.length, 0, 'nothing filed');
});

t('a body nested past the limit is a 400 naming it on every operation that takes a body, never a 500', async () => {
  const deep = nested(20_000);
  const json = { 'content-type': 'application/json' };
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      if (!op?.requestBody) continue;
      const res = await h.call(method.toUpperCase(), concrete(path), { secret, raw: deep, headers: json });
      // An operation on a record reads the record first: an unknown one may be 404 before the body is read.
      if (path.includes('{') && res.status === 404) continue;
      assertError(res, 400, 'VALIDATION_ERROR', { field: 'body', issue: 'too_deep' });
      checked++;
    }
  }
  assert.ok(checked >= 15, `operations checked: ${checked}`);
  // The same depth inside a member that takes any JSON, and nesting within the limit read as before.
  const inside = await h.call('POST', '/v1/reports', { secret, raw: `{"endpoint":"GET /v1/companies","message":"deep","payload":${deep}}`, headers: json });
  assertError(inside, 400, 'VALIDATION_ERROR', { field: 'body', issue: 'too_deep' });
  const ok = await h.call('POST', '/v1/reports', { secret, raw: `{"endpoint":"GET /v1/companies","message":"ok","payload":${nested(30)}}`, headers: json });
  assert.is(ok.status, 201, JSON.stringify(ok.body));
});

t('HEAD on a paid read fetches no rows: its headers are the dry run\'s, never the unpaid body\'s length', async () => {
  const path = '/v1/companies?page_size=25&mode=full';
  const before = await h.running.services.credits.balance(org);
  const head = await fetch(h.running.url + path, { method: 'HEAD', headers: { authorization: `Bearer ${secret}` } });
  assert.is(head.status, 200);
  assert.is(await h.running.services.credits.balance(org), before, 'HEAD charges nothing');
  const dry = await h.call('GET', `${path}&dry_run=true`, { secret });
  const get = await h.call('GET', path, { secret });
  assert.is(get.body.data.length, 25);
  const length = Number(head.headers.get('content-length') ?? 0);
  assert.ok(length < JSON.stringify(get.body).length / 4, `HEAD's Content-Length ${length} describes no page of 25 rows (${JSON.stringify(get.body).length} bytes)`);
  assert.ok(length <= JSON.stringify(dry.body).length + 200, `HEAD answers the dry run (${length} vs ${JSON.stringify(dry.body).length})`);
});

t.run();
