/**
 * The Elasticsearch the runner made sure of: it answers `_cluster/health` at the configured
 * URL, and indices of the run's namespace can be created and deleted by exact name.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { esHealth } from '../../core/adapters/es.ts';
import { esStatus } from '../../local/es-local.ts';
import { closeAll, testConfig, testEs, testIndex } from '../helpers/env.ts';

const t = suite('local elasticsearch');
t.after(closeAll);

t('answers _cluster/health at the configured URL, green or yellow', async () => {
  const health = await esHealth(testEs());
  assert.ok(health, `nothing answers at ${testConfig().esUrl}`);
  assert.ok(['green', 'yellow'].includes(health.status), `status is ${health.status}`);
  assert.ok(health.number_of_nodes >= 1);
});

t('esStatus reports the same cluster as answering', async () => {
  const s = await esStatus(testConfig());
  assert.is(s.url, testConfig().esUrl);
  assert.ok(s.answering);
  assert.ok(s.health && s.health.status !== 'red');
});

t('creates and deletes an index of the test namespace', async () => {
  const es = testEs();
  const index = testIndex('smoke-x');
  assert.ok(index.startsWith(`${testConfig().namespace}-`));
  await es.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: 0 } });
  assert.ok(await es.indices.exists({ index }), `${index} should exist`);
  await es.indices.delete({ index });
  assert.not.ok(await es.indices.exists({ index }), `${index} should be gone`);
});

t.run();
