/**
 * docs/reference.md against a real server (the `standard` data set): each sample response has
 * the members a real answer of the same call has (rows and meta, list and detail, every
 * resource), and each page of the worked pricing example is charged by the server what the
 * reference says per row (a dry run's estimate and a real call's charge).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ENTITIES } from '../../mappings/index.ts';
import { priceExamples, sampleResponses } from '../../server/openapi/reference.ts';
import { useDataset } from '../helpers/datasets.ts';
import { startHarness, withOrg, type Harness } from '../server/harness.ts';

const t = suite('reference');
let h: Harness;
let secret = '';

t.before(async () => {
  h = await startHarness({ ...(await useDataset('standard')).env, BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_CACHE_TTL_S: '0' });
  ({ secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 }));
});
t.after(() => h?.close());

/** The JSON samples of docs/reference.md's generated section, by resource: [list, detail]. */
function samples(): Map<string, [any, any]> {
  const out = new Map<string, [any, any]>();
  const text = sampleResponses();
  for (const def of ENTITIES) {
    const part = text.slice(text.indexOf(`### ${def.name}: list and detail`));
    const blocks = [...part.matchAll(/```json\n([\s\S]*?)```/g)].slice(0, 2).map((m) => JSON.parse(m[1]));
    out.set(def.name, [blocks[0], blocks[1]]);
  }
  return out;
}

/** Members of a list meta that come and go with the data: the count while pending, the cursor when there is more. */
const VARIABLE_META = new Set(['total_count', 'count_pending', 'next_cursor']);
const keys = (o: object, skip = new Set<string>()) => Object.keys(o).filter((k) => !skip.has(k)).sort();

t('each sample list and detail has the members of a real answer to the same call', async () => {
  const all = samples();
  for (const def of ENTITIES) {
    const [list, detail] = all.get(def.name)!;
    const side = def.side ? `${def.side.param}=${def.side.values[0]}&` : '';
    const real = await h.call('GET', `/v1/${def.name}?${side}mode=full&page_size=1`, { secret });
    assert.is(real.status, 200, JSON.stringify(real.body));
    assert.equal(keys(list), keys(real.body), `${def.name}: envelope`);
    assert.equal(keys(list.meta, VARIABLE_META), keys(real.body.meta, VARIABLE_META), `${def.name}: list meta`);
    assert.equal(list.meta.applied_filters, real.body.meta.applied_filters, `${def.name}: applied_filters`);
    const row = real.body.data[0];
    assert.ok(row, `${def.name}: a row`);
    assert.equal(keys(list.data[0]), keys(row), `${def.name}: the row's members`);
    const one = await h.call('GET', `/v1/${def.name}/${encodeURIComponent(row.id)}?${side}mode=full`, { secret });
    assert.is(one.status, 200);
    assert.equal(keys(detail.meta), keys(one.body.meta), `${def.name}: detail meta`);
    assert.equal(keys(detail.data), keys(one.body.data), `${def.name}: the detail's members`);
    assert.is(detail.meta.credits_charged, one.body.meta.credits_charged, `${def.name}: a detail's price`);
  }
});

t('the worked pricing example: the server charges each page what the reference says per row', async () => {
  let charged = 0;
  for (const ex of priceExamples()) {
    const def = ENTITIES.find((d) => d.name === ex.resource)!;
    const side = def.side ? `${def.side.param}=${def.side.values[0]}&` : '';
    const query = `${side}states=TX&page_size=${ex.rows}${ex.tier === 'advanced' ? '&mode=full' : ''}${ex.signals.length ? `&signals=${ex.signals.join(',')}` : ''}`;
    const perRow = ex.credits / ex.rows;
    const dry = await h.call('GET', `/v1/${ex.resource}?${query}&dry_run=true`, { secret });
    assert.is(dry.status, 200, JSON.stringify(dry.body));
    assert.is(dry.body.meta.response_tier, ex.tier);
    assert.ok(Math.abs(dry.body.meta.estimated_credits - dry.body.meta.estimated_rows * perRow) < 1e-9, `${query}: estimate ${dry.body.meta.estimated_credits} for ${dry.body.meta.estimated_rows} rows at ${perRow}`);
    const real = await h.call('GET', `/v1/${ex.resource}?${query}`, { secret });
    assert.is(real.status, 200);
    const rows = real.body.data.length;
    assert.ok(Math.abs(real.body.meta.credits_charged - rows * perRow) < 1e-9, `${query}: charged ${real.body.meta.credits_charged} for ${rows} rows at ${perRow}`);
    if (rows) charged++;
  }
  assert.ok(charged >= 2, 'at least two of the example pages have rows in the data set');
});

t.run();
