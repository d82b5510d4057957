/**
 * What a load leaves behind: an index force-merged to one segment before the alias moved, sorted
 * on the resource's default sort when BINTEL_INDEX_SORT asks (off by default); and the merge
 * itself, run as a polled background task.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { forceMerge, liveIndex } from '../../ingest/indices.ts';
import { ENTITY_NAMES, entity } from '../../mappings/index.ts';
import { indexSortOf } from '../../mappings/es-mapping.ts';
import { loadGenerated, type DataFiles } from '../helpers/data.ts';
import { closeAll, testConfig, testEs } from '../helpers/env.ts';

const config = testConfig();
const es = testEs();
const ns = `${config.namespace}-layout`;
let data: DataFiles | undefined;

test.before(async () => {
  data = await loadGenerated({ config: { ...config, namespace: ns, indexSort: true } }, { companies: 3000, personnel: 3000, brokerOffices: 100, brokers: 20, seed: 5, es });
});
test.after(async () => {
  await data?.cleanup();
  const left = Object.keys(await es.indices.get({ index: `${ns}-*` }).catch(() => ({})));
  if (left.length) await es.indices.delete({ index: left.join(',') });
  await closeAll();
});

const segmentsOf = async (index: string) => (await es.indices.stats({ index, metric: ['segments'] })).indices?.[index]?.primaries?.segments?.count ?? -1;

test('index sorting is off unless configured', () => {
  assert.is(config.indexSort, false);
  assert.is(config.mergeSegments, 1);
});

test('with BINTEL_INDEX_SORT every loaded index is sorted on its default sort; each is merged to one segment', async () => {
  for (const name of ENTITY_NAMES) {
    const index = await liveIndex(es, ns, name);
    assert.ok(index, `${name} is live`);
    const s = (await es.indices.getSettings({ index: index as string }))[index as string]?.settings?.index as { sort?: { field: string[] | string; order: string[] | string } };
    const want = indexSortOf(entity(name));
    assert.equal([s.sort?.field].flat(), want.field, `${name} index.sort.field`);
    assert.equal([s.sort?.order].flat(), want.order, `${name} index.sort.order`);
    assert.is(await segmentsOf(index as string), 1, `${name} has one segment`);
  }
});

test('forceMerge takes an index of several segments down to the number asked', async () => {
  const index = `${ns}-merge-probe`;
  await es.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 } });
  for (let b = 0; b < 4; b++) {
    await es.bulk({ index, operations: Array.from({ length: 50 }, (_, i) => [{ index: { _id: `${b}-${i}` } }, { n: i, b }]).flat(), refresh: true });
  }
  assert.ok((await segmentsOf(index)) >= 2, 'several segments before');
  await forceMerge(es, index, 1);
  assert.is(await segmentsOf(index), 1);
  assert.is((await es.count({ index })).count, 200, 'no document lost');
  await es.indices.delete({ index });
});

test.run();
