/**
 * A page asked for directly, deep in a list (server/read/ladder.ts): found by counting matches
 * between rungs of the sort's rank, then a short from/size. Property: whatever the filter, sort
 * column (names, integers and doubles with blanks) and direction, page k asked for directly holds
 * exactly rows k·size .. k·size+size-1 of the same list walked straight in Elasticsearch with
 * search_after, has_more and the total agree, and the counting path was the one taken, inside
 * Elasticsearch's result window and past it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';
import { LADDER_FROM } from '../../server/read/ladder.ts';

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

t.run();
