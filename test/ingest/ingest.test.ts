/**
 * Ingest against a real Elasticsearch: loads, error reports, bad input of every kind,
 * idempotent re-runs, alias swaps, rollback, reindex and denormalization.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { createEs } from '../../core/adapters/es.ts';
import { entity } from '../../mappings/index.ts';
import { ingestFile, reindexResource } from '../../ingest/run.ts';
import { LoadAborted, EXIT } from '../../ingest/load.ts';
import { listVersions, liveIndex, rollback, vectorStatus } from '../../ingest/indices.ts';
import { LOOKALIKE_FIELD } from '../../mappings/lookalike.ts';
import type { Doc } from '../../mappings/types.ts';
import { aliasName } from '../../core/names.ts';
import { csvFields } from '../../mappings/index.ts';
import type { EntityName } from '../../mappings/types.ts';
import { openCsv } from '../../ingest/csv-source.ts';
import { EsParentLookup } from '../../ingest/parents.ts';
import { completeBatch, isRejected, prepareRow, type PreparedRow } from '../../ingest/transform.ts';
import { copyFixtures, type DataFiles } from '../helpers/data.ts';

// A namespace of its own inside the run's (its indices are `<run ns>-ingest-*`, removed with the
// run's): other suites load companies into the run's namespace, and this one starts from none.
const runConfig = loadConfig();
const config = loadConfig({ ...process.env, BINTEL_NAMESPACE: `${runConfig.namespace}-ingest` });
const es = createEs(config);
const ns = config.namespace;
let fixtures: DataFiles | undefined;
let dir = '';

const ingest = (resource: string, file: string, flags = {}) => ingestFile(config, resource, file, { progress: null, es, ...flags });

async function docs(resource: 'companies' | 'personnel' | 'brokers' | 'broker-offices'): Promise<Map<string, Doc>> {
  const res = await es.search<Doc>({ index: aliasName(ns, resource), size: 1000, sort: [{ id: 'asc' }] });
  return new Map(res.hits.hits.map((h) => [h._id as string, h._source as Doc]));
}

async function refused(p: Promise<unknown>): Promise<LoadAborted> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, LoadAborted);
    return err as LoadAborted;
  }
  throw new assert.Assertion({ message: 'expected the load to be refused', generated: false, operator: 'refused', expects: 'LoadAborted', actual: 'success' });
}

const t = suite('ingest');

t.before(async () => {
  fixtures = await copyFixtures();
  dir = fixtures.dir;
});
t.after(async () => {
  await fixtures?.cleanup();
  await es.close();
});

t('references to a parent that was never loaded are refused with the load order', async () => {
  const err = await refused(ingest('personnel', join(dir, 'personnel.csv')));
  assert.match(err.message, /load companies first|load broker-offices first/i, err.message);
  assert.is(await liveIndex(es, ns, 'personnel'), null, 'no alias created');
});

t('loads in order; rows read = indexed + rejected; bad rows reported with row, line, field and issue', async () => {
  for (const r of ['brokers', 'broker-offices']) {
    const s = await ingest(r, join(dir, `${r}.csv`));
    assert.is(s.rejected, 0);
    assert.is(s.read, s.indexed);
  }
  const c = await ingest('companies', join(dir, 'companies.csv'));
  assert.is(c.read, 5);
  assert.is(c.read, c.indexed + c.rejected);
  assert.is(c.indexed, 2);
  assert.is(c.docs, 2);
  const report = await readFile(c.report as string, 'utf8');
  const lines = report.trim().split('\n');
  assert.is(lines[0], 'row,line,field,issue,expected');
  for (const want of ['3,4,ein,invalid_ein', '3,4,state,invalid_state', '3,4,filing_year,invalid_integer', '4,5,broker_office_ids,invalid_reference', '5,6,(row),wrong_column_count']) {
    assert.ok(lines.some((l) => l.startsWith(want)), `report has ${want}`);
  }
  const p = await ingest('personnel', join(dir, 'personnel.csv'));
  assert.is(p.read, p.indexed + p.rejected);
  assert.is(p.rejected, 1);
});

t('documents carry derived and denormalized attributes', async () => {
  const companies = await docs('companies');
  const acme = companies.get('c1') as Doc;
  assert.is(acme.ein, '123456789');
  assert.is(acme.domain, 'acmehealth.com');
  assert.equal(acme.industry_path, ['Health Care and Social Assistance', 'Ambulatory Health Care Services', 'Offices of Physicians']);
  assert.is(acme.short_form, true);
  assert.is(acme.employee_band, '11-50');
  assert.is(acme.primary_broker, 'Smith Benefits Group LLC');
  assert.is(acme.long_tail_brokers, true);
  assert.equal(acme.brokers, ['Marsh & McLennan Agency', 'Smith Benefits Group LLC']);
  assert.is(acme.relationship_density, '2-3');
  assert.is(acme.company_name__norm, 'acme healthcare');
  assert.is(companies.get('c2')?.company_name__norm, 'cafe lumiere');

  const people = await docs('personnel');
  const ana = people.get('p1') as Doc;
  assert.is(ana.company_name, 'Acme Healthcare Inc.');
  assert.is(ana.total_number_of_employees, 20);
  assert.equal(ana.related_broker_ids, ['b1', 'b2']);
  assert.is(ana.broker_name, undefined, 'company contacts have no broker');
  const tom = people.get('p2') as Doc;
  assert.is(tom.broker_name, 'Marsh & McLennan Agency');
  assert.is(tom.company_name, 'Marsh & McLennan Agency', 'broker contacts echo the broker entity');
  assert.is(tom.broker_office_state, 'TX');
  assert.equal(tom.related_office_ids, ['o1']);
});

t('a batch reads each parent once for all of its joins (one cache scope per parent resource), and completes rows as the load did', async () => {
  const def = entity('companies');
  class Counting extends EsParentLookup {
    calls: { entity: string; ids: readonly string[]; fields: readonly string[] }[] = [];
    mgets = 0;
    override fetch(e: EntityName, ids: readonly string[], fields: readonly string[]) {
      this.calls.push({ entity: e, ids, fields });
      return super.fetch(e, ids, fields);
    }
    protected override mget(e: EntityName, ids: string[], fields: readonly string[]) {
      this.mgets++;
      return super.mget(e, ids, fields);
    }
  }
  const lookup = new Counting(es, ns);
  const source = await openCsv(join(dir, 'companies.csv'), csvFields(def));
  const batch: PreparedRow[] = [];
  for await (const recs of source.records) for (const rec of recs) if (!('issue' in rec)) {
    const r = prepareRow(def, rec, csvFields(def));
    if (!isRejected(r)) batch.push(r);
  }
  const { done } = await completeBatch(def, batch, lookup);
  // Offices are joined twice (every office, the primary office): one fetch, each id once, every field either join reads.
  assert.equal(lookup.calls.map((c) => c.entity), ['broker-offices']);
  const [call] = lookup.calls;
  assert.is(new Set(call.ids).size, call.ids.length);
  assert.equal([...call.fields], ['broker_id', 'broker_name', 'long_tail', 'office_name']);
  const loaded = await docs('companies');
  assert.ok(done.length > 0);
  const joined = ['brokers', 'broker_ids', 'broker_offices', 'primary_broker', 'primary_broker_office', 'primary_broker_id', 'long_tail_brokers'];
  for (const r of done) {
    const stored = loaded.get(String(r.doc.id));
    if (!stored) continue;
    for (const f of joined) assert.equal(r.doc[f], stored[f], `${r.doc.id}.${f}`);
  }
  // The same rows again: every parent from the cache (kept packed), and the same documents.
  const again: PreparedRow[] = batch.map((r) => ({ ...r, doc: Object.fromEntries(Object.entries(r.doc).filter(([k]) => !joined.includes(k))) }));
  const second = await completeBatch(def, again, lookup);
  assert.is(lookup.calls.length, 2);
  assert.is(lookup.mgets, 1, 'the second batch read no parent from Elasticsearch');
  assert.equal(second.done.map((r) => joined.map((f) => r.doc[f])), done.map((r) => joined.map((f) => r.doc[f])));
});

t('re-running the same file is idempotent and keeps the previous version for rollback', async () => {
  const before = await docs('companies');
  const first = await liveIndex(es, ns, 'companies');
  const s = await ingest('companies', join(dir, 'companies.csv'));
  assert.is(s.previous, first);
  assert.equal(await docs('companies'), before);
  const versions = await listVersions(es, ns, entity('companies'));
  assert.is(versions.length, 2);
  assert.ok(versions[0].live && versions[0].complete);
  assert.ok(!versions[1].live && versions[1].complete);
  const r = await rollback(es, ns, entity('companies'));
  assert.is(r.to, first);
  assert.is(await liveIndex(es, ns, 'companies'), first);
});

t('the rows are served before the lookalike graph: vectors flat and status building when the alias moves, the graph mapping and ready at the end', async () => {
  let atServed: { live: string | null; status: string; type: unknown; index: string; tier: unknown } | undefined;
  // The load's merge policy (few merges: the graph merge rewrites every row) until its last merge, then the default.
  const tierOf = async (index: string) => (Object.values(await es.indices.getSettings({ index, flat_settings: true }))[0]?.settings as Record<string, unknown> | undefined)?.['index.merge.policy.segments_per_tier'];
  const vectorType = async (index: string) => {
    const m = await es.indices.getMapping({ index });
    return (Object.values(m)[0]?.mappings?.properties?.[LOOKALIKE_FIELD] as { index_options?: { type?: string } } | undefined)?.index_options?.type;
  };
  const s = await ingest('companies', join(dir, 'companies.csv'), {
    onServed: async (x: { index: string }) => {
      atServed = { index: x.index, live: await liveIndex(es, ns, 'companies'), status: await vectorStatus(es, x.index), type: await vectorType(x.index), tier: await tierOf(x.index) };
    },
  });
  assert.ok(atServed, 'onServed was called');
  assert.is(atServed?.index, s.index);
  assert.is(atServed?.live, s.index, 'the alias had moved');
  assert.is(atServed?.status, 'building', 'marked building while served before its graph');
  assert.is(atServed?.type, 'flat', 'vectors loaded flat');
  assert.is(atServed?.tier, '50', 'served with the load merge policy until the graph merge');
  assert.is(await tierOf(s.index), undefined, 'the default merge policy once the graph is written');
  assert.is(s.vectors, 'ready');
  assert.ok(s.servedMs <= s.elapsedMs);
  assert.is(await vectorStatus(es, s.index), 'ready');
  assert.is(await vectorType(s.index), 'hnsw', 'the graph mapping once ready');
  assert.is(await liveIndex(es, ns, 'companies'), s.index);
});

t('bad files are refused before loading, with a clear message, and the alias stays', async () => {
  const live = await liveIndex(es, ns, 'companies');
  const write = async (name: string, content: string | Buffer) => {
    const p = join(dir, name);
    await writeFile(p, content);
    return p;
  };
  const cases: [string, string | Buffer, RegExp, number][] = [
    ['empty.csv', '', /is empty/, EXIT.inputRefused],
    ['header-only.csv', 'id,company_name,filing_year\n', /no data rows/, EXIT.inputRefused],
    ['unknown.csv', 'id,company_name,filing_year,compnay_size\nx,A,2024,3\n', /unknown column\(s\): compnay_size/, EXIT.inputRefused],
    ['missing.csv', 'id,ein\nx,123456789\n', /missing required column\(s\): company_name, filing_year/, EXIT.inputRefused],
    ['dup.csv', 'id,company_name,company_name,filing_year\nx,A,B,2024\n', /duplicate column "company_name"/, EXIT.inputRefused],
    ['unterminated.csv', 'id,company_name,filing_year\nu1,Good,2024\nu2,"Never closed,2024\nu3,C,2024\n', /row 2 \(line 3\): unterminated quoted field/, EXIT.aborted],
  ];
  for (const [name, content, message, code] of cases) {
    if (name === 'unterminated.csv') {
      const viaFastCsv = await refused(ingest('companies', await write(name, content), { parser: 'fast-csv' }));
      assert.match(viaFastCsv.message, /line 3\): unterminated quoted field/);
    }
    const err = await refused(ingest('companies', await write(name, content)));
    assert.match(err.message, message, name);
    assert.is(err.exitCode, code, `${name} exit code`);
    assert.is(await liveIndex(es, ns, 'companies'), live, `${name}: alias unchanged`);
  }
  const missing = await refused(ingest('companies', join(dir, 'nope.csv')));
  assert.match(missing.message, /file not found/);
  const versions = await listVersions(es, ns, entity('companies'));
  assert.ok(versions.every((v) => v.complete), 'refused loads leave no half index behind');
});

for (const parser of ['bintel', 'fast-csv'] as const)
t(`BOM, CRLF, quoted newlines and invalid UTF-8 (${parser} parser): good rows load, bad rows are reported`, async () => {
  const content = Buffer.concat([
    Buffer.from('\ufeffid,company_name,filing_year,plan_name\r\n'),
    Buffer.from('k1,Kappa Corp,2024,"Health\r\nand Welfare"\r\n'),
    Buffer.from('k2,Bad '),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(' bytes,2024,\r\nk3,Lambda LLC,2024,\r\n'),
  ]);
  const p = join(dir, 'mixed.csv');
  await writeFile(p, content);
  const s = await ingest('companies', p, { parser });
  assert.is(s.read, 3);
  assert.is(s.indexed, 2);
  const report = await readFile(s.report as string, 'utf8');
  assert.match(report, /2,4,company_name,invalid_utf8/, 'line counts the quoted newline');
  const d = await docs('companies');
  assert.equal([...d.keys()].sort(), ['k1', 'k3']);
  assert.is(d.get('k1')?.plan_name, 'Health\r\nand Welfare');
});

t('reindex rebuilds from the live index and refreshes denormalized parent fields', async () => {
  await ingest('companies', join(dir, 'companies.csv'));
  const renamed = (await readFile(join(dir, 'companies.csv'), 'utf8')).replace('Acme Healthcare Inc.', 'Acme Health Partners');
  await writeFile(join(dir, 'companies2.csv'), renamed);
  await ingest('companies', join(dir, 'companies2.csv'));
  assert.is((await docs('personnel')).get('p1')?.company_name, 'Acme Healthcare Inc.', 'stale until reindexed');
  const before = await liveIndex(es, ns, 'personnel');
  const s = await reindexResource(config, 'personnel', { progress: null, es });
  assert.is(s.previous, before);
  assert.is(s.read, s.indexed);
  const after = await docs('personnel');
  assert.is(after.get('p1')?.company_name, 'Acme Health Partners');
  assert.is(after.get('p2')?.broker_name, 'Marsh & McLennan Agency');
  assert.is(after.size, 3);
});

t.run();
