/**
 * The lean search path of list and detail calls (core/adapters/es-search.ts) against the real
 * Elasticsearch: the same answer as the general client for the same body, errors that say
 * what went wrong, and an unreachable cluster rendered as 503 with nothing charged.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../core/config.ts';
import { createEs } from '../../core/adapters/es.ts';
import { createEsSearch } from '../../core/adapters/es-search.ts';
import { NotFoundError, ServiceUnavailableError } from '../../core/errors.ts';
import { assertError, startHarness } from './harness.ts';

const t = suite('es-search');
const config = loadConfig();
const es = createEs(config);
const lean = createEsSearch(config.esUrl);
const index = `${config.namespace}-es-search-${randomUUID().slice(0, 8)}`;

t.before(async () => {
  await es.indices.create({ index, mappings: { properties: { id: { type: 'keyword' }, n: { type: 'integer' }, state: { type: 'keyword' } } } });
  const docs = Array.from({ length: 120 }, (_, i) => ({ id: `d${String(i).padStart(3, '0')}`, n: (i * 37) % 11, state: ['TX', 'CA', 'NY'][i % 3] }));
  await es.bulk({ refresh: true, operations: docs.flatMap((d) => [{ index: { _index: index, _id: d.id } }, d]) });
});
t.after(async () => {
  await es.indices.delete({ index });
  await Promise.all([es.close(), lean.close()]);
});

t('answers exactly as the general client for the same bodies (hits, order, sort values, totals)', async () => {
  const bodies = [
    { query: { bool: { filter: [{ terms: { state: ['TX', 'CA'] } }] } }, sort: [{ n: 'desc' }, { id: 'asc' }], size: 26, track_total_hits: 50 },
    { query: { match_all: {} }, sort: [{ id: 'asc' }], size: 10, search_after: ['d050'], _source: false, track_total_hits: false },
    { query: { term: { state: 'NY' } }, sort: [{ n: 'asc' }, { id: 'asc' }], size: 5, from: 7, _source: { includes: ['id'] } },
  ];
  for (const body of bodies) {
    const a = await lean.search(index, body);
    const b = await es.search({ index, ...(body as object) });
    assert.ok(a.hits.hits.length > 0, JSON.stringify(body));
    assert.equal(a.hits.hits.map((h) => [h._id, h.sort, h._source]), b.hits.hits.map((h) => [h._id, h.sort, h._source]));
    assert.equal(a.hits.total, b.hits.total);
  }
});

t('mget answers as the general client: found documents with their source, a missing id found: false; a missing index the same as the general client', async () => {
  const ids = ['d007', 'nope', 'd100'];
  const a = await lean.mget<{ id: string }>(index, ids);
  const b = await es.mget<{ id: string }>({ index, ids });
  const view = (docs: readonly object[]) => docs.map((d) => { const x = d as { _id: string; found?: boolean; _source?: unknown }; return [x._id, x.found, x._source]; });
  assert.equal(view(a.docs), view(b.docs));
  assert.equal(a.docs.map((d) => d.found), [true, false, true]);
  // A missing index: Elasticsearch answers 200 with an error per document, to both clients alike (no document found).
  const gone = { lean: await lean.mget(`${index}-missing`, ['d001']), general: await es.mget({ index: `${index}-missing`, ids: ['d001'] }) };
  assert.equal(view(gone.lean.docs), view(gone.general.docs));
  assert.is(gone.lean.docs[0].found, undefined);
});

t('a missing index is NotFoundError naming it; nothing listening is ServiceUnavailableError', async () => {
  const missing = await lean.search(`${index}-missing`, { query: { match_all: {} } }).catch((e: unknown) => e);
  assert.instance(missing, NotFoundError);
  assert.is((missing as NotFoundError).what, 'index');
  assert.is((missing as NotFoundError).id, `${index}-missing`);
  const dead = createEsSearch('http://127.0.0.1:9');
  const err = await dead.search(index, { query: { match_all: {} } }).catch((e: unknown) => e);
  await dead.close();
  assert.instance(err, ServiceUnavailableError);
  assert.is((err as ServiceUnavailableError).service, 'elasticsearch');
});

t('a list call with Elasticsearch unreachable: 503 SERVICE_UNAVAILABLE, no stack, nothing charged', async () => {
  const h = await startHarness({ ES_URL: 'http://127.0.0.1:9' });
  try {
    const org = `org-${randomUUID().slice(0, 8)}`;
    const { secret } = await h.key({ org });
    await h.running.services.credits.grant(org, 10_000);
    const res = await h.call('GET', '/v1/companies?states=TX', { secret });
    assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.not.match(JSON.stringify(res.body), '127.0.0.1:9');
    assert.is(await h.running.services.credits.balance(org), 10_000);
  } finally {
    await h.close();
  }
});

t.run();
