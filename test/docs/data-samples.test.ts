/**
 * docs/data.md "Your first load" works as written: its four sample files, taken from the page,
 * load with `bintel ingest` in the order the page gives, every row indexed and joined to its
 * parent; its bad-row sample is left out and reported exactly as the page shows.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { aliasName } from '../../core/names.ts';
import type { EntityName } from '../../mappings/types.ts';
import { bintel } from '../helpers/cli.ts';
import { testConfig, testEs } from '../helpers/env.ts';

const t = suite('docs: data.md samples');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const page = readFileSync(join(ROOT, 'docs/data.md'), 'utf8');
/** The samples of the page: `<!-- sample:NAME -->` then a csv block. */
const samples = new Map([...page.matchAll(/<!-- sample:([^ ]+) -->\n```csv\n([\s\S]*?)```/g)].map(([, name, body]) => [name, body]));
const ns = `${testConfig().namespace}-d${randomUUID().slice(0, 6)}`;
const env = { BINTEL_NAMESPACE: ns };
let dir = '';

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bintel-samples-'));
  for (const [name, body] of samples) await writeFile(join(dir, name), body);
});
t.after(async () => {
  await rm(dir, { recursive: true, force: true });
  await testEs().indices.delete({ index: `${ns}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => {});
});

t('the page has the four samples and the commands in load order', () => {
  assert.equal([...samples.keys()].slice(0, 4), ['brokers.csv', 'broker-offices.csv', 'companies.csv', 'personnel.csv']);
  const order = [...page.matchAll(/^npx bintel ingest (\S+) (\S+)/gm)].map(([, resource, file]) => `${resource} ${file}`);
  assert.equal(order, ['brokers brokers.csv', 'broker-offices broker-offices.csv', 'companies companies.csv', 'personnel personnel.csv']);
});

t('the four samples load as written, every row indexed and joined to its parent', async () => {
  for (const resource of ['brokers', 'broker-offices', 'companies', 'personnel'] as const) {
    const res = await bintel(['ingest', resource, join(dir, `${resource}.csv`)], env);
    assert.is(res.code, 0, `${resource}: ${res.err}${res.out}`);
  }
  const es = testEs();
  const rows = async (resource: EntityName) => (await es.search({ index: aliasName(ns, resource), size: 10, sort: [{ id: 'asc' }] })).hits.hits.map((x) => x._source as Record<string, unknown>);
  assert.is((await rows('brokers')).length, 1);
  assert.equal((await rows('broker-offices')).map((o) => o.broker_name), ['Northwind Benefits LLC', 'Northwind Benefits LLC']);
  const [company] = await rows('companies');
  assert.is(company.primary_broker, 'Northwind Benefits LLC');
  const people = await rows('personnel');
  assert.equal(people.map((p) => p.company_name), ['Contoso Tools Inc', 'Northwind Benefits LLC']);
});

t('the bad-row sample is left out and reported as the page shows', async () => {
  const res = await bintel(['ingest', 'personnel', join(dir, 'personnel-bad.csv')], env);
  assert.is.not(res.code, 0, 'a file whose only row is refused is not a successful load');
  const report = await readFile(join(dir, 'personnel-bad.csv.errors.csv'), 'utf8');
  assert.is(report.trim(), samples.get('personnel-bad.csv.errors.csv')!.trim());
  // The live personnel index is still the one the good sample loaded.
  const count = await testEs().count({ index: aliasName(ns, 'personnel') });
  assert.is(count.count, 2);
});

t.run();
