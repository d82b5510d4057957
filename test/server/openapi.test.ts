/**
 * The OpenAPI document: served without a key, version 1.0.0; every route the
 * routers register is in the document and the document names no route the server lacks; every
 * allowlisted query parameter is a parameter; it passes `redocly lint` (recommended rules);
 * every example (request bodies, success and error responses) validates against its own schema.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import { ROUTE_GROUPS } from '../../server/app.ts';
import { documentedRoutes, operationKey, operations } from '../../server/openapi/operations.ts';
import { mount } from '../../server/routes/route.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { listParams } from '../../server/read/list-request.ts';
import { startHarness, type Harness } from './harness.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const t = suite('openapi');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let h: Harness;
let doc: any;

t.before(async () => {
  h = await startHarness();
  const res = await h.call('GET', '/v1/openapi.json');
  assert.is(res.status, 200);
  doc = res.body;
});
t.after(async () => h.close());

/** The registered routes as `METHOD /path/{param}`; a RegExp path is named by the table operation whose sample path it matches. */
function registered(routers: Router[]): string[] {
  const ops = operations();
  const out = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack) {
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        if (typeof layer.path === 'string') {
          out.add(`${method} ${layer.path.replace(/:(\w+)/g, '{$1}')}`);
          continue;
        }
        const re = layer.path as unknown as RegExp;
        // A pattern route (the detail /v1/{resource}/{id}) is the table entry with a path parameter it
        // matches; the literal paths it would also match belong to the routers mounted before it.
        const matching = ops.filter((o) => o.method.toUpperCase() === method && re.test(o.path.replace(/\{\w+\}/g, 'sample-id1')));
        const templated = matching.filter((o) => o.path.includes('{'));
        const hits = templated.length ? templated : matching;
        out.add(hits.length === 1 ? operationKey(hits[0]) : `${method} ${String(re)} (matches ${hits.length} table entries)`);
      }
    }
  }
  return [...out].sort();
}

t('served without a key, OpenAPI 3.1, version 1.0.0, bearer scheme', () => {
  assert.is(doc.openapi, '3.1.0');
  assert.is(doc.info.version, '1.0.0-internal-phase-1');
  assert.equal(doc.components.securitySchemes.bearerAuth, { ...doc.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer' });
});

t('every registered route is in the document, and the document names no other', () => {
  const routers = [...ROUTE_GROUPS.public, ...ROUTE_GROUPS.authenticated].map((group) => mount(h.running.services, group));
  const fromRouters = registered(routers);
  const fromDoc = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();
  assert.equal(fromDoc.filter((k) => !fromRouters.includes(k)), [], 'documented but not served');
  assert.equal(fromRouters.filter((k) => !fromDoc.includes(k)), [], 'served but not documented');
  assert.ok(fromDoc.length > 30);
});

t('one declaration per route: the mounted routes and the operation table are the same declarations, each once', () => {
  const mounted = [...ROUTE_GROUPS.public, ...ROUTE_GROUPS.authenticated].flat().map(operationKey);
  const documented = documentedRoutes().map(operationKey);
  const twice = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);
  assert.equal(twice(mounted), [], 'mounted twice');
  assert.equal(twice(documented), [], 'documented twice');
  assert.equal([...mounted].sort(), [...documented].sort());
  // The table is made of the declarations, one operation each, with their access.
  assert.equal(operations().map((o) => `${operationKey(o)} ${JSON.stringify(o.access)}`), documentedRoutes().map((r) => `${operationKey(r)} ${JSON.stringify(r.access)}`));
  // Every router layer is one declaration (HEAD comes with GET).
  const layers = [...ROUTE_GROUPS.public, ...ROUTE_GROUPS.authenticated].flatMap((group) => mount(h.running.services, group).stack.flatMap((l) => l.methods.filter((m) => m !== 'HEAD')));
  assert.is(layers.length, mounted.length);
});

t('list parameters are the allowlist, typed (cf and eb as deepObject)', () => {
  for (const def of ENTITIES) {
    const params = doc.paths[`/v1/${def.name}`].get.parameters as { name: string; schema: any; style?: string }[];
    const expected = listParams(def).map((p) => (p.endsWith('[') ? p.slice(0, -1) : p)).sort();
    assert.equal(params.map((p) => p.name).sort(), expected, def.name);
    for (const p of params) assert.ok(p.schema?.type, `${def.name} ${p.name} has a type`);
    const cf = params.find((p) => p.name === 'cf')!;
    assert.is(cf.style, 'deepObject');
    assert.equal(Object.keys(cf.schema.properties).sort(), def.fields.filter((f) => f.cf).map((f) => f.name).sort());
    const pageSize = params.find((p) => p.name === 'page_size')!;
    assert.equal([pageSize.schema.minimum, pageSize.schema.maximum], [1, 500]);
  }
});

t('scopes per operation; keyed operations document 401 and 403, public ones need no key', () => {
  assert.equal(doc.paths['/v1/companies'].get.security, [{ bearerAuth: ['read:companies'] }]);
  assert.equal(doc.paths['/v1/api-keys'].post.security, [{ bearerAuth: ['keys:write'] }]);
  assert.equal(doc.paths['/v1/health'].get.security, []);
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [m, op] of Object.entries(ops)) {
      if (op.security.length === 0) continue;
      assert.ok(op.responses['401'] && op.responses['403'], `${m} ${path}`);
    }
  }
  // Body schemas are the ajv schemas the routes validate with.
  assert.equal(doc.paths['/v1/companies/batch'].post.requestBody.content['application/json'].schema.properties.ids.maxItems, 100);
});

t('/v1/docs serves the local Swagger UI and its assets without a key', async () => {
  const page = await h.call('GET', '/v1/docs');
  assert.is(page.status, 200);
  assert.not.match(page.body, /https?:\/\//);
  for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) assert.is((await h.call('GET', `/v1/docs/${file}`)).status, 200, file);
  assert.match((await h.call('GET', '/v1/docs/init.js')).body, /validatorUrl: null/);
  assert.is((await h.call('GET', '/v1/docs/package.json')).status, 404);
});

t('redocly lint passes with no problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bintel-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 1));
    const res = spawnSync(join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish'], {
      encoding: 'utf8',
      // No telemetry, no update check: the lint works offline.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
    });
    const out = `${res.stdout}\n${res.stderr}`;
    assert.is(res.status, 0, out);
    assert.not.match(out, /\b(error|warning)\b\s+[a-z-]+/, out);
    assert.match(out, /valid/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('every example validates against its own schema (request bodies, success and error responses)', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, 'doc');
  const pointer = (parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  let checked = 0;
  const check = (where: string[], content: any) => {
    const json = content?.['application/json'];
    if (!json?.schema) return;
    const validate = ajv.compile({ $ref: `doc#/${pointer([...where, 'content', 'application/json', 'schema'])}` });
    const examples = [...(json.example !== undefined ? [json.example] : []), ...Object.values(json.examples ?? {}).map((e: any) => e.value)];
    for (const ex of examples) {
      checked++;
      assert.ok(validate(ex), `${where.join(' ')}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(ex).slice(0, 400)}`);
    }
  };
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (op.requestBody) check(['paths', path, method, 'requestBody'], op.requestBody.content);
      for (const [status, res] of Object.entries<any>(op.responses)) if (!res.$ref) check(['paths', path, method, 'responses', status], res.content);
    }
  }
  for (const [name, res] of Object.entries<any>(doc.components.responses)) check(['components', 'responses', name], res.content);
  // Every enveloped success has one (the document itself, /v1/openapi.json, is not enveloped).
  const ops = Object.entries<any>(doc.paths).filter(([p]) => p !== '/v1/openapi.json').flatMap(([, i]) => Object.values<any>(i));
  assert.ok(ops.every((op) => Object.entries<any>(op.responses).some(([s, r]) => s.startsWith('2') && (r.content?.['application/json']?.example !== undefined || !r.content?.['application/json']))), 'every JSON success has an example');
  assert.ok(checked >= ops.length, `${checked} examples checked for ${ops.length} operations`);
});

t.run();
