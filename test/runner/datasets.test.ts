/**
 * The shared data sets (test/helpers/datasets.ts) cannot be written, and a change is caught: a
 * load into one through the test helpers throws naming it, a write to its indices is refused by
 * Elasticsearch (a write block), and the end-of-run check names a data set whose aliases moved.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { aliasName } from '../../core/names.ts';
import { changedDatasets, useDataset } from '../helpers/datasets.ts';
import { loadGenerated } from '../helpers/data.ts';
import { closeAll, testConfig, testEs, testRedis } from '../helpers/env.ts';

test.after(() => closeAll());

test('a load into a shared data set throws naming it; a write to its index is refused; it reads as loaded afterwards', async () => {
  const ds = await useDataset('standard');
  const config = { ...testConfig(), namespace: ds.namespace };
  const loaded = await loadGenerated({ config }, { companies: 5, personnel: 0, brokerOffices: 1, brokers: 1, seed: 1 }).then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(loaded, 'the load was refused');
  assert.match(loaded.message, /shared data set "standard"/);
  const es = testEs();
  const alias = aliasName(ds.namespace, 'companies');
  const written = await es.index({ index: alias, id: 'intruder', document: { company_name: 'Intruder Inc.' } }).then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(written, 'the write was refused');
  assert.match(JSON.stringify((written as { meta?: { body?: unknown } }).meta?.body ?? written.message), /cluster_block_exception|blocked/);
  assert.is((await es.count({ index: alias })).count, 1500, 'the data set holds what it was loaded with');
  assert.is((await useDataset('standard')).namespace, ds.namespace, 'and is reused as it is');
});

test('the end-of-run check names a data set whose aliases moved, and passes one that did not', async () => {
  const lane = `${testConfig().namespace}-lane`;
  const redis = testRedis();
  const key = `${lane}-dsstd:test-dataset`;
  assert.equal(await changedDatasets(testConfig(), [lane]), [], 'no data set loaded: nothing to say');
  await redis.set(key, JSON.stringify({ fingerprint: 'x', aliases: { [`${lane}-dsstd-companies`]: `${lane}-dsstd-companies-v1` } }));
  try {
    const problems = await changedDatasets(testConfig(), [lane]);
    assert.is(problems.length, 1);
    assert.match(problems[0], /shared data set standard of .*-lane was changed/);
    await redis.set(key, JSON.stringify({ fingerprint: 'x', aliases: {} }));
    assert.equal(await changedDatasets(testConfig(), [lane]), [], 'aliases as recorded: no problem');
  } finally {
    await redis.del(key);
  }
});

test.run();
