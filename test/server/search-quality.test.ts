/**
 * Typo tolerance of `search`, measured on sampled names with injected typos (deletion,
 * transposition, neighbouring-key substitution, missing space, two typos, accents dropped,
 * legal suffix changed). Reports top-1 and top-5 hit rates and holds them to the goals.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startHarness, withOrg, type Harness } from './harness.ts';
import { useDataset } from '../helpers/datasets.ts';
import { aliasName } from '../../core/names.ts';
import { TYPOS, rng } from '../../ingest/generate/typos.ts';

const t = suite('search-quality');
let h: Harness;
let secret = '';

t.before(async () => {
  // The shared large data set (20,000 companies), read only: the sample is drawn from what it holds.
  h = await startHarness({ ...(await useDataset('large')).env, BINTEL_CRAWL_THRESHOLD: '100000', BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  secret = (await withOrg(h, { milli: 100_000_000 })).secret;
});
t.after(async () => {
  await h.close();
});

t('typo tolerance on company names: top-1 >= 90%, top-5 >= 98% overall', async () => {
  const r = rng(1234);
  // Sorted, so the pool (and the seeded sample drawn from it) does not depend on load order.
  const res = await h.running.services.es.search<{ company_name: string }>({ index: aliasName(h.config.namespace, 'companies'), size: 10000, sort: [{ id: 'asc' }], _source: ['company_name'] });
  const all = res.hits.hits.map((x) => ({ id: x._id as string, name: x._source!.company_name }));
  // Names that are unique after normalization, with a word long enough to misspell.
  const counts = new Map<string, number>();
  for (const c of all) counts.set(c.name.toLowerCase(), (counts.get(c.name.toLowerCase()) ?? 0) + 1);
  const pool = all.filter((c) => counts.get(c.name.toLowerCase()) === 1 && /[A-Za-z]{5,}/.test(c.name) && c.name.includes(' '));
  const sample = Array.from({ length: 100 }, () => pool[Math.floor(r() * pool.length)]);
  const report: Record<string, { top1: number; top5: number; n: number }> = {};
  let top1 = 0;
  let top5 = 0;
  let n = 0;
  for (const [kind, typo] of Object.entries(TYPOS)) {
    const stats = (report[kind] = { top1: 0, top5: 0, n: 0 });
    for (const c of sample) {
      const query = typo(c.name, r);
      const hits = await h.call('GET', `/v1/companies?search=${encodeURIComponent(query)}&page_size=5&fields=company_name&include_count=false`, { secret });
      assert.is(hits.status, 200, JSON.stringify(hits.body));
      const ids = hits.body.data.map((x: { id: string }) => x.id);
      stats.n++;
      if (ids[0] === c.id) stats.top1++;
      if (ids.includes(c.id)) stats.top5++;
      else if (process.env.SEARCH_DEBUG) console.log('    miss', kind, JSON.stringify(c.name), '->', JSON.stringify(query), hits.body.data.map((x: { company_name: string }) => x.company_name).join(' | '));
    }
    top1 += stats.top1;
    top5 += stats.top5;
    n += stats.n;
  }
  const pct = (x: number, d: number) => `${((100 * x) / d).toFixed(1)}%`;
  console.log(`\n  typo tolerance (${n} queries): top-1 ${pct(top1, n)}, top-5 ${pct(top5, n)}`);
  for (const [k, s] of Object.entries(report)) console.log(`    ${k.padEnd(22)} top-1 ${pct(s.top1, s.n).padStart(6)}  top-5 ${pct(s.top5, s.n).padStart(6)}`);
  assert.ok(top1 / n >= 0.9, `top-1 ${pct(top1, n)}`);
  assert.ok(top5 / n >= 0.98, `top-5 ${pct(top5, n)}`);
});

t('names with "&": found typed with "and", without the "&", or run together ("AT&T" as "ATT")', async () => {
  const res = await h.running.services.es.search<{ company_name: string }>({
    index: aliasName(h.config.namespace, 'companies'), size: 40, sort: [{ id: 'asc' }], _source: ['company_name'],
    query: { wildcard: { 'company_name.raw': '*&*' } },
  });
  const sample = res.hits.hits.map((x) => ({ id: x._id as string, name: x._source!.company_name }));
  assert.ok(sample.length >= 10, `only ${sample.length} generated names hold "&"`);
  const misses: string[] = [];
  for (const c of sample) {
    for (const query of [c.name.replace(/\s*&\s*/g, ' and '), c.name.replace(/&/g, ''), c.name.replace(/\s*&\s*/g, '')]) {
      const hits = await h.call('GET', `/v1/companies?search=${encodeURIComponent(query)}&page_size=5&fields=company_name&include_count=false`, { secret });
      assert.is(hits.status, 200, JSON.stringify(hits.body));
      if (!hits.body.data.some((x: { id: string }) => x.id === c.id)) misses.push(`${c.name} <- ${query}`);
    }
  }
  assert.equal(misses, [], `not in the top 5: ${misses.join('; ')}`);
});

t.run();
