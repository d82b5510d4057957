/**
 * Lookalikes benchmark: `npm run bench:lookalikes [-- --duration 8 --connections 2]`, on the
 * `<ns>-benchq` data of bench:query (`npm run bench:query -- --load-only` first: 1M companies).
 *
 * For 3-seed, 50-result calls (rotating over 100 seed sets), with and without list filters,
 * autocannon measures POST /v1/lookalikes through the API (its own process) and, in the same
 * run, the identical knn request (built by the same pure builders, server/read/lookalikes.ts)
 * sent straight to Elasticsearch. Prints p50/p99, req/s and the API/direct p50 ratio, the disk
 * taken by the vectors (Elasticsearch's _disk_usage of the field), and the quality at this size:
 * for seed sets of one subsector and band, the shares of results in the same subsector and in
 * the same or an adjacent band, beside a more_like_this query on the same seeds.
 * `--candidates 200,500,1000` sweeps `num_candidates` on the direct request: for each value its
 * p50/p99 and its recall, the share of the exact top 50 (every row's vector scored here, as
 * Elasticsearch scores them) that the approximate search returns, over 20 unfiltered seed sets,
 * and the mean similarity of the rows it returns over that of the exact top 50.
 * Goals: the API adds under 25% at p50; p99 under 100 ms through the API.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { entity } from '../mappings/index.ts';
import { againstExact, byteCosine, cosineOfScore, featureFields, LOOKALIKE_FIELD, lookalikeDims, seedQuery, vectorBytes, type Scored } from '../mappings/lookalike.ts';
import { EMPLOYEE_BANDS } from '../mappings/reference.ts';
import { createServices } from '../server/context.ts';
import { authorizeList } from '../server/read/authorize.ts';
import { sourceFields } from '../server/read/decorate.ts';
import { knnFilter, lookalikeBody, parseLookalikes } from '../server/read/lookalikes.ts';
import type { KeyRecord } from '../server/services/keys.ts';
import { spawnServer } from './server.ts';

// --namespace: the data of another namespace (e.g. what `bench:ingest -- --ready after --keep` kept).
const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '8' }, connections: { type: 'string', default: '2' }, candidates: { type: 'string' }, namespace: { type: 'string' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: args.namespace ?? `${base.namespace}-benchq`, rateLimitPerMinute: 100_000_000, cacheTtlS: 0 });
type Doc = Record<string, any>;

interface Result {
  p50: number;
  p99: number;
  rps: number;
}

async function run(url: string, headers: Record<string, string>, bodies: string[]): Promise<Result> {
  let i = 0;
  const requests = [{ method: 'POST' as const, setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[i++ % bodies.length] }) }];
  const res = await autocannon({ url, headers: { 'content-type': 'application/json', ...headers }, connections: Number(args.connections), duration: Number(args.duration), requests: requests as never });
  if (res.non2xx || res.errors) throw new Error(`${url}: ${res.non2xx} non-2xx, ${res.errors} errors`);
  return { p50: res.latency.p50, p99: res.latency.p99, rps: Math.round(res.requests.average) };
}

async function main(): Promise<void> {
  const services = createServices(config);
  const index = aliasName(config.namespace, 'companies');
  const sample = await services.es.search<Doc>({ index, size: 3000, query: { match_all: {} }, sort: [{ id: 'asc' }] }).catch(() => null);
  const docs = (sample?.hits.hits ?? []).map((h) => h._source as Doc);
  if (docs.length < 3000) throw new Error(`no bench data in ${config.namespace}: run \`npm run bench:query -- --load-only\` first`);
  const total = (await services.es.count({ index })).count;
  const running = await spawnServer(config.namespace);
  const org = `benchl-${randomUUID().slice(0, 8)}`;
  const { key, secret } = await services.keys.createRoot({ org, user: 'bench' });
  await services.credits.grant(org, 1_000_000_000_000);
  const auth = { authorization: `Bearer ${secret}` };

  // 100 seed sets of 3 companies of one subsector and band (the lookalike call a sales team makes).
  const groups = new Map<string, Doc[]>();
  for (const d of docs) if (d.industry_path?.[1] && d.employee_band) groups.set(`${d.industry_path[1]}|${d.employee_band}`, [...(groups.get(`${d.industry_path[1]}|${d.employee_band}`) ?? []), d]);
  const sets = [...groups.values()].filter((g) => g.length >= 3).flatMap((g) => [g.slice(0, 3)]).slice(0, 100);
  const lines: string[] = [];
  const scenarios: [string, Record<string, string>][] = [['no filters', {}], ['states + employee_bands + funding_status', { states: 'TX,CA,NY,FL,IL,OH', employee_bands: '11-50,51-200,201-500', funding_status: 'Fully Insured' }]];
  for (const [label, filters] of scenarios) {
    const requests = sets.map((s) => ({ type: 'companies', seed_ids: s.map((d) => d.id), limit: 50, ...(Object.keys(filters).length ? { filters } : {}) }));
    const direct = requests.map((r, i) => {
      const req = parseLookalikes(r);
      const grant = authorizeList(key as KeyRecord, req.list);
      return JSON.stringify(lookalikeBody(req, { filter: knnFilter(req, { taggedIds: null }), seeds: sets[i], candidates: config.lookalikeCandidates, source: sourceFields(req.def, grant.projection) }));
    });
    const bodies = requests.map((r) => JSON.stringify(r));
    await run(`${running.url}/v1/lookalikes`, auth, bodies.slice(0, 10)); // warm-up
    const api = await run(`${running.url}/v1/lookalikes`, auth, bodies);
    const es = await run(`${config.esUrl}/${index}/_search`, {}, direct);
    lines.push(`| ${label} | ${api.p50} / ${api.p99} | ${api.rps} | ${es.p50} / ${es.p99} | ${es.rps} | ${(api.p50 / Math.max(es.p50, 0.001)).toFixed(2)} |`);
  }
  process.stdout.write(`\n${total} companies, 3 seeds, 50 results, ${args.connections} connections, num_candidates ${config.lookalikeCandidates}\n\n| call | API p50 / p99 (ms) | API req/s | direct p50 / p99 (ms) | direct req/s | API/direct p50 |\n|---|---|---|---|---|---|\n${lines.join('\n')}\n`);

  // Quality at this size: the same measure as the test, knn against more_like_this.
  const bands = EMPLOYEE_BANDS.map((b) => b[0]);
  const share = async (ids: (s: Doc[]) => Promise<string[]>) => {
    let sub = 0;
    let band = 0;
    let n = 0;
    for (const s of sets.slice(0, 50)) {
      const got = await ids(s);
      if (!got.length) continue;
      const res = await services.es.mget<Doc>({ index, ids: got, _source: ['industry_path', 'employee_band'] });
      for (const d of res.docs) {
        const src = ('_source' in d ? d._source : undefined) as Doc | undefined;
        if (!src) continue;
        sub += src.industry_path?.[1] === s[0].industry_path[1] ? 1 : 0;
        band += Math.abs(bands.indexOf(src.employee_band) - bands.indexOf(s[0].employee_band)) <= 1 ? 1 : 0;
        n++;
      }
    }
    return `same subsector ${((100 * sub) / n).toFixed(1)}%, same or adjacent band ${((100 * band) / n).toFixed(1)}%`;
  };
  const knn = await share(async (s) => {
    const res = await fetch(`${running.url}/v1/lookalikes`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ type: 'companies', seed_ids: s.map((d) => d.id), limit: 50 }) });
    return ((await res.json()) as { data: Doc[] }).data.map((r) => r.id);
  });
  const mlt = await share(async (s) => {
    const res = await services.es.search({ index, size: 50, _source: false, query: { more_like_this: { fields: ['company_industry', 'employee_band', 'state', 'funding_status', 'premium_tier', 'benefit_types', 'carriers', 'brokers', 'dma'], like: s.map((d) => ({ _index: index, _id: d.id })), min_term_freq: 1, min_doc_freq: 1, max_query_terms: 50, minimum_should_match: '1' } } });
    return res.hits.hits.map((h) => String(h._id));
  });
  process.stdout.write(`\nquality over 50 seed sets of 3 (one subsector and band), top 50:\n  knn features:   ${knn}\n  more_like_this: ${mlt}\n`);

  if (args.candidates) process.stdout.write(await candidateSweep(services, index, sets, args.candidates.split(',').map(Number)));

  // What the vectors cost on disk.
  const concrete = Object.keys(await services.es.indices.getAlias({ name: index }))[0];
  const usage = (await services.es.transport.request({ method: 'POST', path: `/${concrete}/_disk_usage`, querystring: { run_expensive_tasks: 'true' } })) as Record<string, any>;
  const u = usage[concrete];
  const field = u?.fields?.[LOOKALIKE_FIELD];
  const mb = (b: number) => `${(b / 1_048_576).toFixed(0)} MB`;
  if (u && field) process.stdout.write(`\nindex ${concrete}: ${mb(u.store_size_in_bytes)} in all; ${LOOKALIKE_FIELD}: ${mb(field.total_in_bytes)} (knn vectors and graph ${mb(field.knn_vectors_in_bytes ?? 0)}), ${((100 * field.total_in_bytes) / u.store_size_in_bytes).toFixed(1)}% of the index\n`);
  await running.close();
  await services.close();
}

/** Every company's vector as bytes, in one array (a point-in-time walk of the features' fields). */
async function allVectors(services: ReturnType<typeof createServices>, index: string): Promise<{ ids: string[]; vecs: Int8Array; dims: number }> {
  const def = entity('companies').lookalike!;
  const dims = lookalikeDims(def);
  const total = (await services.es.count({ index })).count;
  const vecs = new Int8Array(total * dims);
  const ids: string[] = [];
  const pit = (await services.es.openPointInTime({ index, keep_alive: '2m' })).id;
  let after: unknown[] | undefined;
  for (;;) {
    const page = await services.es.search<Doc>({ pit: { id: pit, keep_alive: '2m' }, size: 10_000, sort: ['_shard_doc'], _source: [...featureFields(def), 'id'], track_total_hits: false, ...(after ? { search_after: after as never } : {}) });
    const hits = page.hits.hits;
    if (!hits.length) break;
    for (const h of hits) {
      if (ids.length >= total) break;
      vecs.set(vectorBytes(def, h._source as Doc), ids.length * dims);
      ids.push(String(h._id));
    }
    after = hits[hits.length - 1].sort as unknown[];
  }
  await services.es.closePointInTime({ id: pit });
  return { ids, vecs, dims };
}

/** Direct p50/p99 and recall of the exact top 50 for each `num_candidates` value. */
async function candidateSweep(services: ReturnType<typeof createServices>, index: string, sets: Doc[][], values: number[]): Promise<string> {
  const def = entity('companies').lookalike!;
  const t0 = Date.now();
  const all = await allVectors(services, index);
  const k = 50;
  // 20 seed sets: 10 of one subsector and band, 10 of three companies taken at random.
  const rnd = Array.from({ length: 10 }, (_, i) => [0, 1, 2].map((j) => all.ids[(i * 7919 + j * 104_729) % all.ids.length]));
  const randomDocs = (await services.es.mget<Doc>({ index, ids: rnd.flat() })).docs.map((d) => ('_source' in d ? d._source : undefined) as Doc);
  const seedSets = [...sets.slice(0, 10), ...rnd.map((_, i) => randomDocs.slice(3 * i, 3 * i + 3))];
  const exact = seedSets.map((seeds) => {
    const q = seedQuery(def, seeds);
    const seedIds = new Set(seeds.map((d) => d.id));
    const scored: Scored[] = [];
    for (let i = 0; i < all.ids.length; i++) if (!seedIds.has(all.ids[i])) scored.push({ id: all.ids[i], score: byteCosine(q, all.vecs.subarray(i * all.dims, (i + 1) * all.dims)) });
    return scored.sort((a, b) => b.score - a.score).slice(0, k);
  });
  const lines: string[] = [];
  for (const candidates of values) {
    const bodies = seedSets.map((seeds) => {
      const req = parseLookalikes({ type: 'companies', seed_ids: seeds.map((d) => d.id), limit: k });
      return lookalikeBody(req, { filter: knnFilter(req, { taggedIds: null }), seeds, candidates, source: ['id'] });
    });
    let found = 0;
    let expected = 0;
    let ratio = 0;
    for (let i = 0; i < bodies.length; i++) {
      const hits = (await services.es.search({ index, ...bodies[i] })).hits.hits;
      const m = againstExact(exact[i], hits.map((h) => ({ id: String(h._id), score: cosineOfScore(Number(h._score)) })), k);
      found += m.found;
      expected += m.expected;
      ratio += m.similarity / bodies.length;
    }
    const lat = await run(`${config.esUrl}/${index}/_search`, {}, bodies.map((b) => JSON.stringify(b)));
    lines.push(`| ${candidates} | ${lat.p50} / ${lat.p99} | ${lat.rps} | ${((100 * found) / expected).toFixed(1)}% (${found}/${expected}) | ${ratio.toFixed(4)} |`);
  }
  return `\nnum_candidates sweep (direct, unfiltered, top ${k}, ${seedSets.length} seed sets; exact answer from ${all.ids.length} vectors in ${((Date.now() - t0) / 1000).toFixed(0)} s)\n\n| num_candidates | direct p50 / p99 (ms) | req/s | recall of the exact top ${k} | mean similarity / exact |\n|---|---|---|---|---|\n${lines.join('\n')}\n`;
}

await main();
