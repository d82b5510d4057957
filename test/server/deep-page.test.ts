/**
 * A page asked for directly, deep in a list (server/read/ladder.ts): found by counting matches
 * between rungs of the sort's rank, then a short from/size. Property: whatever the filter, sort
 * column (names, integers and doubles with blanks) and direction, page k asked for directly holds
 * exactly rows k·size .. k·size+size-1 of the same list walked straight in Elasticsearch with
 * search_after, has_more and the total agree, and the counting path was the one taken, inside
 * Elasticsearch's result window and past it.
 *
 * The bound on depth: a relevance order (search, no sort_by) cannot be counted to, so its pages
 * end at the result window (400 `page`/`out_of_range` past it; the cursor goes on), and no page,
 * past the end of a sorted list included, costs more than a couple of Elasticsearch searches
 * (read from the index's own search statistics).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertError, loadGenerated, startHarness, withOrg, type DataFiles, type Harness, type Res } from './harness.ts';
import { LADDER_FROM } from '../../server/read/ladder.ts';
import { aliasName } from '../../core/names.ts';

const t = suite('deep pages');
const org = `org-${randomUUID().slice(0, 8)}`;
let h: Harness;
let data: DataFiles | undefined;
let internal = '';

t.before(async () => {
  // A result window of 2,000: pages past it are found by counting too (else walked with search_after).
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000000', BINTEL_RATE_LIMIT_PER_MIN: '1000000', BINTEL_PAGE_WINDOW: '2000' });
  data = await loadGenerated(h, { companies: 6000, personnel: 300, brokerOffices: 600, brokers: 60, seed: 23 });
  await withOrg(h, { org, field_tier: 'advanced', milli: 1_000_000_000 });
  internal = (await h.key({ org, internal: true, field_tier: 'advanced' })).secret;
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

type Explain = { index: string; body: { query: unknown; sort: unknown[] }; ladder?: unknown };

/** Every id of the list, in its order, walked straight in Elasticsearch. */
async function walkDirect(index: string, query: unknown, sort: unknown[]): Promise<string[]> {
  const ids: string[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const res = await h.running.services.es.search({ index, query: query as never, sort: sort as never, size: 1000, _source: false, ...(after ? { search_after: after as never } : {}) });
    ids.push(...res.hits.hits.map((x) => x._id as string));
    if (res.hits.hits.length < 1000) return ids;
    after = res.hits.hits[res.hits.hits.length - 1].sort as unknown[];
  }
}

/** Searches Elasticsearch has run on `index` (its query phase count, every shard). */
async function searchesOn(index: string): Promise<number> {
  const stats = await h.running.services.es.indices.stats({ index, metric: 'search' });
  return Object.values(stats.indices ?? {}).reduce((n, i) => n + (i.total?.search?.query_total ?? 0), 0);
}

/** The status and body of one call, and the Elasticsearch searches it ran on `index`. */
async function measured(index: string, path: string, on: Harness = h): Promise<Res & { searches: number }> {
  const before = await searchesOn(index);
  const res = await on.call('GET', path, { secret: internal });
  return { ...res, searches: (await searchesOn(index)) - before };
}

const lists = [
  '/v1/companies?',
  '/v1/companies?sort_dir=desc',
  '/v1/companies?states=TX,CA,NY,FL&sort_dir=desc',
  '/v1/companies?cf[company_name]=a',
  '/v1/companies?sort_by=total_number_of_employees',
  '/v1/companies?sort_by=total_number_of_employees&sort_dir=desc&states=TX,CA,NY,FL,IL,OH,PA',
  '/v1/companies?sort_by=participant_growth&sort_dir=desc',
  '/v1/companies?sort_by=participants&search=health&sort_dir=asc',
  '/v1/broker-offices?sort_by=client_count',
  '/v1/broker-offices?sort_by=client_count&sort_dir=desc',
];

t('page k asked for directly = rows k·size.. of the list walked in Elasticsearch (names, integers, doubles, blanks, both directions, filters)', async () => {
  let counted = 0;
  let pagesChecked = 0;
  for (const list of lists) {
    const size = 25;
    const first = await h.call('GET', `${list}&page_size=${size}&explain=true`, { secret: internal });
    assert.is(first.status, 200, `${list}: ${JSON.stringify(first.body)}`);
    const explain = first.body.meta.explain as Explain;
    const all = await walkDirect(explain.index, explain.body.query, explain.body.sort);
    const lastPage = Math.ceil(all.length / size) - 1;
    // Pages past LADDER_FROM: the first there, two inside, the last (into rows without a value), one past the end.
    const pages = [Math.ceil(LADDER_FROM / size), 70, Math.floor(lastPage / 2), lastPage - 3, lastPage, lastPage + 1].filter((p, i, xs) => p * size >= LADDER_FROM && p <= 399 && xs.indexOf(p) === i);
    for (const page of pages) {
      const res = await h.call('GET', `${list}&page_size=${size}&page=${page}&explain=true`, { secret: internal });
      assert.is(res.status, 200, `${list} page ${page}: ${JSON.stringify(res.body)}`);
      const want = all.slice(page * size, page * size + size);
      assert.equal(res.body.data.map((r: { id: string }) => r.id), want, `${list} page ${page} of ${lastPage}`);
      assert.is(res.body.meta.has_more, page * size + size < all.length, `${list} page ${page}: has_more`);
      if (res.body.meta.total_count !== undefined) assert.is(res.body.meta.total_count, all.length, `${list} page ${page}: total`);
      const counting = Boolean((res.body.meta.explain as Explain).ladder);
      if (counting) counted++;
      // Past the result window a page is counted to (never walked) when it holds rows.
      if (page * size >= 2000 && page <= lastPage) assert.ok(counting, `${list} page ${page}: found by counting past the window`);
      pagesChecked++;
    }
  }
  assert.ok(pagesChecked >= 30, `${pagesChecked} pages checked`);
  // Most deep pages are found by counting (not those in the first rung's span or past the end).
  assert.ok(counted >= pagesChecked / 2, `${counted} of ${pagesChecked} pages found by counting`);
});

t('a page asked for directly equals the same page reached by walking with next_cursor', async () => {
  const list = '/v1/companies?states=TX,CA,NY,FL,IL,OH,PA,GA,NC,MI&sort_dir=desc&page_size=100';
  let cursor: string | undefined;
  for (let page = 0; page <= 14; page++) {
    const walked = await h.call('GET', `${list}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { secret: internal });
    assert.is(walked.status, 200, JSON.stringify(walked.body));
    cursor = walked.body.meta.next_cursor;
    if (page * 100 < LADDER_FROM) continue;
    const direct = await h.call('GET', `${list}&page=${page}`, { secret: internal });
    assert.equal(direct.body.data.map((r: { id: string }) => r.id), walked.body.data.map((r: { id: string }) => r.id), `page ${page}`);
    if (!cursor) break;
  }
});

t('relevance order ends at the result window: past it 400 page/out_of_range naming the bound, run no search; the cursor goes on', async () => {
  // A second server on the same data and Redis, with a window of 100 rows, so that a search matches more than it.
  const small = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000000', BINTEL_RATE_LIMIT_PER_MIN: '1000000', BINTEL_PAGE_WINDOW: '100' });
  try {
    const window = small.config.pageWindow;
    const index = aliasName(h.config.namespace, 'companies');
    const get = (path: string) => measured(index, path, small);
    // The commonest words of company names: the one matching most rows, past the window.
    const names = await h.running.services.es.search<{ company_name: string }>({ index, size: 2000, _source: ['company_name'] });
    const freq = new Map<string, number>();
    for (const hit of names.hits.hits) for (const w of new Set((hit._source?.company_name ?? '').toLowerCase().match(/[a-z]{4,}/g) ?? [])) freq.set(w, (freq.get(w) ?? 0) + 1);
    let list = '';
    let most = 0;
    for (const [word] of [...freq].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
      const c = await small.call('GET', `/v1/companies?search=${word}&count_only=true`, { secret: internal });
      if (c.status === 200 && c.body.data.total_count > most) {
        most = c.body.data.total_count;
        list = `/v1/companies?search=${word}&include_count=false`;
      }
    }
    assert.ok(most > window + 100, `a search word matching more rows than the window (${list}: ${most})`);
    const first = await small.call('GET', `${list}&explain=true`, { secret: internal });
    const explain = first.body.meta.explain as Explain;
    assert.equal(explain.body.sort, [{ _score: 'desc' }, { id: 'asc' }], 'relevance order');
    const all = await walkDirect(explain.index, explain.body.query, explain.body.sort);
    for (const size of [25, 7, 10]) {
      const last = Math.ceil(window / size) - 1;
      // Pages inside the window: rows k·size.. of the list, at most two searches each (a walk of under a window, then the page).
      for (const page of [0, Math.floor(last / 2), Math.max(0, last - 1), last]) {
        const res = await get(`${list}&page_size=${size}&page=${page}`);
        assert.is(res.status, 200, `page ${page} of ${size}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.data.map((r: { id: string }) => r.id), all.slice(page * size, page * size + size), `page ${page} of ${size}`);
        assert.ok(res.searches <= 2, `page ${page} of ${size}: ${res.searches} searches`);
      }
      // Past the window, however far: 400 naming page and the bound, before any search; a dry run validates alike.
      for (const page of [last + 1, last + 2, 39_999, 1_000_000]) {
        for (const extra of ['', '&dry_run=true']) {
          const res = await get(`${list}&page_size=${size}&page=${page}${extra}`);
          assertError(res, 400, 'VALIDATION_ERROR', { field: 'page', issue: 'out_of_range' });
          const detail = res.body.error.details.find((d: { field: string }) => d.field === 'page');
          assert.match(String(detail.expected), String(window), 'expected names the bound');
          assert.match(String(detail.expected), 'cursor', 'expected names the way on');
          assert.match(String(detail.expected), `page ${last} `, 'expected names the last page at this size');
          assert.is(res.searches, 0, `page ${page}${extra}: no search`);
        }
      }
      // count_only has no page: it still answers.
      const count = await small.call('GET', `${list}&page_size=${size}&page=${last + 1}&count_only=true`, { secret: internal });
      assert.is(count.status, 200);
      assert.is(count.body.data.total_count, all.length);
    }
    // The cursor goes on past the window, a page at a time, rows as walked in Elasticsearch.
    const size = 25;
    const last = Math.ceil(window / size) - 1;
    let res = await get(`${list}&page_size=${size}&page=${last}`);
    for (let page = last + 1; page <= last + 3; page++) {
      const cursor = res.body.meta.next_cursor as string;
      assert.ok(cursor, `a cursor to page ${page}`);
      const m = await get(`${list}&page_size=${size}&cursor=${encodeURIComponent(cursor)}${page === last + 2 ? `&page=${page}` : ''}`);
      assert.is(m.status, 200, JSON.stringify(m.body));
      assert.is(m.body.meta.page, page);
      assert.equal(m.body.data.map((r: { id: string }) => r.id), all.slice(page * size, page * size + size), `page ${page} by cursor`);
      assert.is(m.searches, 1, 'a cursor page is one search');
      res = m;
    }
  } finally {
    await small.close();
  }
});

t('a page past the end of a sorted list is empty at any depth, without walking the list', async () => {
  for (const list of ['/v1/companies?sort_by=total_number_of_employees', '/v1/companies?sort_dir=desc', '/v1/companies?sort_by=participant_growth&sort_dir=desc&states=TX,CA,NY,FL']) {
    const size = 25;
    const first = await h.call('GET', `${list}&page_size=${size}&explain=true`, { secret: internal });
    const explain = first.body.meta.explain as Explain;
    const all = await walkDirect(explain.index, explain.body.query, explain.body.sort);
    const end = Math.ceil(all.length / size);
    // The ladder of the field is read once (kept for minutes): read it before measuring.
    await h.call('GET', `${list}&page_size=${size}&page=${Math.ceil(2000 / size)}`, { secret: internal });
    for (const page of [end, end + 1, end + 500, 39_999, 1_000_000]) {
      for (const count of ['false', 'true']) {
        const res = await measured(explain.index, `${list}&page_size=${size}&page=${page}&include_count=${count}`);
        assert.is(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.data, []);
        assert.is(res.body.meta.has_more, false);
        if (count === 'true') assert.is(res.body.meta.total_count, all.length);
        // The counting request (and the total's count): never a walk of the list.
        assert.ok(res.searches <= 2, `${list} page ${page} include_count=${count}: ${res.searches} searches`);
      }
    }
  }
});

t.run();
