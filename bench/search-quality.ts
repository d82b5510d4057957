/**
 * Search quality at scale: `npm run bench:search-quality [-- --samples 1000]`, on the 1M
 * companies of bench:query (`npm run bench:query -- --load-only` first).
 *
 * Samples company names (a seeded random_score), and through the API (`search=`, the list
 * endpoint, its own process) reports:
 * - exact top-1: the name typed exactly as stored ranks a company of exactly that name first,
 *   over all samples and, separately, over the samples that have a near-duplicate twin in the
 *   data (a name equal once case, accents, punctuation and legal suffix are folded away, e.g.
 *   "Abebe Distributors, Inc." / "Abebe Distributors Inc."): the case the exact tier exists for;
 * - typo top-1 and top-5 per kind of typo (ingest/generate/typos.ts): the sampled company among
 *   the first results (by id, or a company of the same exact name).
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { createServices } from '../server/context.ts';
import { spawnServer } from './server.ts';
import { TYPOS, rng } from '../ingest/generate/typos.ts';

const { values: args } = parseArgs({ options: { samples: { type: 'string', default: '1000' }, seed: { type: 'string', default: '7' } } });
const SAMPLES = Number(args.samples);
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq` });

const SUFFIX = /[,\s]+(inc|llc|corp|corporation|co|company|lp|llp|ltd|plc|pc|pllc)\.?$/i;
/** A name with case, accents, punctuation and a legal suffix folded away: twins share it. */
const folded = (s: string) =>
  s.normalize('NFKD').replace(/\p{M}/gu, '').replace(SUFFIX, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : 'n/a');

async function main(): Promise<void> {
  const services = createServices(config);
  const index = aliasName(config.namespace, 'companies');
  const total = (await services.es.count({ index })).count;
  if (total < 10_000) throw new Error(`no bench data in ${config.namespace}: run \`npm run bench:query -- --load-only\` first`);
  const sample = await services.es.search<{ company_name: string }>({
    index,
    size: SAMPLES,
    _source: ['company_name'],
    query: { function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: Number(args.seed), field: '_seq_no' } }] } },
  });
  const rows = sample.hits.hits.map((h) => ({ id: String(h._id), name: h._source!.company_name }));

  const api = await spawnServer(config.namespace);
  const org = `benchs-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench' });
  await services.credits.grant(org, 1_000_000_000_000);
  const search = async (q: string): Promise<{ id: string; company_name: string }[]> => {
    const res = await fetch(`${api.url}/v1/companies?search=${encodeURIComponent(q)}&page_size=10&fields=company_name`, { headers: { authorization: `Bearer ${secret}` } });
    if (!res.ok) throw new Error(`search answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { data: { id: string; company_name: string }[] }).data;
  };

  let exact = 0;
  let withTwin = 0;
  let exactWithTwin = 0;
  const lost: string[] = [];
  const typo: Record<string, { top1: number; top5: number; n: number }> = {};
  const r = rng(Number(args.seed));
  const started = performance.now();
  for (const row of rows) {
    const hits = await search(row.name);
    const first = hits[0];
    const ok = !!first && first.company_name === row.name;
    // Twins: other spellings of the same folded name, found by the search itself (top 10).
    const twin = hits.some((h) => h.company_name !== row.name && folded(h.company_name) === folded(row.name));
    exact += ok ? 1 : 0;
    if (twin) {
      withTwin++;
      exactWithTwin += ok ? 1 : 0;
    }
    if (!ok && lost.length < 8) lost.push(`"${row.name}" → "${first?.company_name ?? '(nothing)'}"`);
    for (const [kind, fn] of Object.entries(TYPOS)) {
      const typed = fn(row.name, r);
      if (typed === row.name) continue;
      const got = await search(typed);
      const hit = (h: { id: string; company_name: string }) => h.id === row.id || h.company_name === row.name;
      const s = (typo[kind] ??= { top1: 0, top5: 0, n: 0 });
      s.n++;
      s.top1 += got[0] && hit(got[0]) ? 1 : 0;
      s.top5 += got.slice(0, 5).some(hit) ? 1 : 0;
    }
  }
  const secs = (performance.now() - started) / 1000;
  console.log(`${total.toLocaleString('en-US')} companies, ${rows.length} sampled names (seed ${args.seed}), ${secs.toFixed(0)} s through the API`);
  console.log(`exact top-1, all samples:            ${pct(exact, rows.length)} (${exact}/${rows.length})`);
  console.log(`exact top-1, samples with a twin:    ${pct(exactWithTwin, withTwin)} (${exactWithTwin}/${withTwin}; ${pct(withTwin, rows.length)} of samples have a near-duplicate in their top 10)`);
  if (lost.length) console.log(`  misses: ${lost.join('; ')}`);
  console.log('typo                  top-1    top-5     n');
  for (const [kind, s] of Object.entries(typo)) console.log(`${kind.padEnd(20)} ${pct(s.top1, s.n).padStart(6)}  ${pct(s.top5, s.n).padStart(6)}  ${String(s.n).padStart(5)}`);
  await api.close();
  await services.close();
}

await main();
