/**
 * The example requests of the parameter table in docs/api.md (Lists and details) are real: each
 * one is sent to a server loaded with generated data and must be answered 200, and every list
 * parameter of every resource has an example. (The curl lines of every doc are run by
 * test/docs/docs-examples.test.ts.)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ENTITIES } from '../../mappings/index.ts';
import type { EntityName } from '../../mappings/types.ts';
import { COMMON_LIST_PARAMS } from '../../server/read/list-request.ts';
import { filterParams } from '../../server/read/filters.ts';
import { sideParams } from '../../server/read/request.ts';
import { startHarness, withOrg, type Harness } from './harness.ts';
import { useDataset } from '../helpers/datasets.ts';
import { aliasName } from '../../core/names.ts';

const t = suite('readme examples');
const org = `docs-${randomUUID().slice(0, 8)}`;
let h: Harness;
let secret = '';
let examples: string[] = [];
const values: Record<string, string> = {};

type Row = Record<string, any>;

async function first(entity: EntityName, query: Row, source: string[]): Promise<Row> {
  const res = await h.running.services.es.search({ index: aliasName(h.config.namespace, entity), query, size: 1, sort: [{ id: 'asc' }], _source: source });
  const hit = res.hits.hits[0];
  assert.ok(hit, `no ${entity} for ${JSON.stringify(query)}`);
  return hit._source as Row;
}

t.before(async () => {
  const guide = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = /<!-- examples:start -->([\s\S]*?)<!-- examples:end -->/.exec(guide);
  assert.ok(section, 'docs/api.md has an examples section');
  examples = [...section[1].matchAll(/`GET (\/v1\/[^`]+)`/g)].map((m) => m[1]);

  // The shared standard data set: read only (the tag and CRM list below are this suite's organization's).
  h = await startHarness({ ...(await useDataset('standard')).env, BINTEL_CRAWL_THRESHOLD: '1000' });
  secret = (await withOrg(h, { org, field_tier: 'advanced', milli: 100_000_000 })).secret;

  const company = await first('companies', { bool: { filter: [{ exists: { field: 'ein' } }, { exists: { field: 'domain' } }] } }, ['id', 'ein', 'domain', 'company_name']);
  const person = await first('personnel', { bool: { filter: [{ term: { lead_type: 'company' } }, { exists: { field: 'email_address' } }, { exists: { field: 'person_linkedin_url' } }] } }, ['id', 'email_address', 'person_linkedin_url']);
  const office = await first('broker-offices', { exists: { field: 'broker_id' } }, ['id', 'broker_id']);
  const brokers = await h.running.services.es.search({ index: aliasName(h.config.namespace, 'brokers'), size: 100, _source: ['id', 'broker_name'] });
  const names = brokers.hits.hits.map((x) => (x._source as Row).broker_name as string);
  const broker = brokers.hits.hits.map((x) => x._source as Row).find((b) => names.filter((n) => n === b.broker_name).length === 1) as Row;
  Object.assign(values, {
    company_id: company.id, ein: company.ein, domain: company.domain, company_name: company.company_name,
    person_id: person.id, email: person.email_address, linkedin_url: person.person_linkedin_url,
    office_id: office.id, broker_id: broker.id, broker_name: broker.broker_name,
  });
  const tagged = await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: company.id, tag: 'renewal-q3' } });
  assert.is(tagged.status, 201, JSON.stringify(tagged.body));
  await h.running.services.crm.replace(org, 'hubspot', { eins: [company.ein], domains: [company.domain] }, 'docs test');
});
t.after(async () => {
  await h.close();
});

t('every example request of docs/api.md is answered 200', async () => {
  assert.ok(examples.length > 40, `${examples.length} examples`);
  const failures: string[] = [];
  for (const ex of examples) {
    const path = ex.replace(/<([a-z_]+)>/g, (m, name: string) => {
      assert.ok(values[name] !== undefined, `unknown placeholder ${m} in ${ex}`);
      return encodeURIComponent(values[name]);
    });
    const res = await h.call('GET', path, { secret });
    if (res.status !== 200) failures.push(`${ex} → ${res.status} ${JSON.stringify(res.body?.error)}`);
  }
  assert.equal(failures, []);
});

t('every list parameter of every resource has an example', () => {
  const keysOf = (resource: string) =>
    new Set(examples.filter((e) => e.startsWith(`/v1/${resource}?`)).flatMap((e) => [...new URLSearchParams(e.slice(e.indexOf('?') + 1)).keys()].map((k) => (k.startsWith('cf[') ? 'cf[' : k.startsWith('eb[') ? 'eb[' : k))));
  const anywhere = new Set(ENTITIES.flatMap((d) => [...keysOf(d.name)]));
  const missing: string[] = [];
  for (const p of COMMON_LIST_PARAMS) if (!['cursor', 'explain'].includes(p) && !anywhere.has(p)) missing.push(p);
  for (const def of ENTITIES) {
    const own = keysOf(def.name);
    for (const p of [...filterParams(def), ...sideParams(def)]) if (!own.has(p)) missing.push(`${def.name}: ${p}`);
  }
  assert.equal(missing, []);
});

t.run();
