/**
 * Demo data for `bintel up` (ingest/demo.ts): loaded once, left alone while current, and
 * loaded again when a live index was built with an older mapping or document layout.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { createEs } from '../../core/adapters/es.ts';
import { ensureData } from '../../ingest/demo.ts';
import { listVersions } from '../../ingest/indices.ts';
import { entity } from '../../mappings/index.ts';

// A namespace of its own: other suites of the run expect resources they did not load to be absent.
const root = loadConfig();
const base = { ...root, namespace: `${root.namespace}-demo` };
const es = createEs(base);
let home = '';
const sizes = { companies: 40, personnel: 40, brokerOffices: 8, brokers: 4 };
const run = () => ensureData({ ...base, home }, es, { sandbox: false, sizes, seed: 5, log: () => {} });

test.before(async () => {
  home = await mkdtemp(join(tmpdir(), 'bintel-demo-'));
});
test.after(async () => {
  await es.close();
  await rm(home, { recursive: true, force: true });
});

test('loads every resource once; a second run leaves current data alone', async () => {
  const first = await run();
  assert.is(first.loaded, true);
  assert.equal(first.counts, { brokers: 4, 'broker-offices': 8, companies: 40, personnel: 40 });
  const second = await run();
  assert.is(second.loaded, false);
});

test('a live index built with an older mapping is loaded again, and the new one is current', async () => {
  const def = entity('companies');
  const live = (await listVersions(es, base.namespace, def)).find((v) => v.live);
  assert.ok(live && !live.stale);
  const mapping = await es.indices.getMapping({ index: live.index });
  const meta = (mapping[live.index].mappings._meta ?? {}) as { bintel: Record<string, unknown> };
  await es.indices.putMapping({ index: live.index, _meta: { ...meta, bintel: { ...meta.bintel, mapping_hash: 'older' } } });
  assert.ok((await listVersions(es, base.namespace, def)).find((v) => v.live)?.stale);
  const again = await run();
  assert.is(again.loaded, true);
  const now = (await listVersions(es, base.namespace, def)).find((v) => v.live);
  assert.ok(now && !now.stale && now.index !== live.index);
  assert.is((await run()).loaded, false);
});

test.run();
