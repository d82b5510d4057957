/**
 * Every environment variable the configuration reads (core/config.ts, and the local
 * Elasticsearch and Redis provisioning in local/, the CLI's launcher and its process settings) has a row in the configuration table of
 * docs/operations.md, and every variable the table names is read somewhere: an operator reading
 * the table sees every setting, and no setting that does nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const t = suite('docs: the configuration table');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Set by the system, not settings of bintel. */
const NOT_SETTINGS = new Set(['PATH', 'HOME', 'LANG', 'NODE_ENV', 'CI']);

/** Names read as `env.NAME`, or passed as `'NAME'` to the config's readers (positive('BINTEL_X', ...)). */
function readNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const [, name] of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(name);
  for (const [, name] of source.matchAll(/\(\s*'((?:BINTEL|ES|REDIS)_[A-Z0-9_]+)'/g)) names.add(name);
  for (const n of NOT_SETTINGS) names.delete(n);
  return names;
}

/** Names in the first column of the table under "## Configuration". */
function tableNames(): Set<string> {
  const page = read('docs/operations.md');
  const section = page.slice(page.indexOf('\n## Configuration'), page.indexOf('\n## ', page.indexOf('\n## Configuration') + 5));
  const names = new Set<string>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    for (const [, name] of line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(name);
  }
  return names;
}

const sources = ['core/config.ts', 'bin/compiled.js', 'bin/malloc.js', ...readdirSync(join(ROOT, 'local')).filter((f) => f.endsWith('.ts')).map((f) => `local/${f}`)];

t('every variable the configuration reads has a row', () => {
  const table = tableNames();
  const missing: string[] = [];
  for (const path of sources) for (const name of readNames(read(path))) if (!table.has(name)) missing.push(`${name} (${path})`);
  assert.equal(missing, []);
  assert.ok(table.size >= 40, `${table.size} variables in the table`);
});

t('every variable of the table is read', () => {
  const read = new Set(sources.flatMap((p) => [...readNames(readFileSync(join(ROOT, p), 'utf8'))]));
  const unread = [...tableNames()].filter((n) => !read.has(n));
  assert.equal(unread, []);
});

t.run();

const endpoints = suite('docs: the endpoint table of docs/api.md');

/** (METHOD path) pairs the table's first column names: `{resource}` is each resource, any `{param}` one. */
function tableEndpoints(): Set<string> {
  const page = read('docs/api.md');
  const start = page.indexOf('| Method and path |');
  const rows = page.slice(start, page.indexOf('\n\n', start)).split('\n').slice(2);
  const out = new Set<string>();
  for (const row of rows) {
    let methods: string[] = [];
    for (const [, item] of row.split('|')[1].matchAll(/`([^`]+)`/g)) {
      const m = /^(?:([A-Z][A-Z/, ]*) )?(\/[^\s?]+)/.exec(item.trim());
      if (!m) continue;
      if (m[1]) methods = m[1].split(/[/,]\s*/).filter(Boolean);
      for (const method of methods) for (const path of expand(m[2])) out.add(`${method} ${path}`);
    }
  }
  return out;
}

const RESOURCES = ['companies', 'personnel', 'brokers', 'broker-offices'];
const norm = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
const expand = (path: string): string[] => (path.includes('{resource}') ? [norm(path), ...RESOURCES.map((r) => norm(path.replace('{resource}', r)))] : [norm(path)]);

endpoints('every operation of the OpenAPI document has a row', async () => {
  const { openApiDocument } = await import('../../server/openapi/document.ts');
  const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
  const table = tableEndpoints();
  const missing: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const key = `${method.toUpperCase()} ${norm(path)}`;
      // A resource path is documented once as /v1/{resource}/...: a per-resource operation
      // (lookup, batch) names its resource.
      if (!table.has(key)) missing.push(key);
    }
  }
  assert.equal(missing, []);
  assert.ok(table.size > 60, `${table.size} endpoints in the table`);
});

endpoints.run();
