/**
 * The bulk writer against a real Elasticsearch: documents arrive byte for byte whatever their
 * characters and however many requests they span; a document Elasticsearch refuses is reported
 * with its row and line while the rest of its request is indexed; and the retry path's requests
 * (the byte ranges of some items) hold exactly those items.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { BulkWriter, addAction, newFlight, pick } from '../../ingest/bulk.ts';
import type { PreparedRow, RejectedRow } from '../../ingest/transform.ts';
import { closeAll, testConfig, testEs } from '../helpers/env.ts';

const config = testConfig();
const es = testEs();
const index = `${config.namespace}-bulk-writer`;

test.before(async () => {
  await es.indices.delete({ index }).catch(() => {});
  await es.indices.create({ index, mappings: { dynamic: 'strict', properties: { name: { type: 'keyword' }, n: { type: 'long' } } }, settings: { number_of_replicas: 0 } });
});
test.after(async () => {
  await es.indices.delete({ index }).catch(() => {});
  await closeAll();
});

const text = fc.string({ unit: 'grapheme', maxLength: 40 });

test('every document arrives as sent, across requests of batchSize, and refused ones name their row and line', async () => {
  // Rows with n = "x" break the strict long mapping: Elasticsearch refuses those items only.
  const rows: PreparedRow[] = fc.sample(text, 257).map((name, i) => ({ row: i + 1, line: i + 2, id: `d${i}`, doc: { name, n: i % 50 === 7 ? 'x' : i } }));
  const rejected: RejectedRow[] = [];
  let indexed = 0;
  const writer = new BulkWriter({ es, index, concurrency: 2, batchSize: 40, onIndexed: (n) => (indexed += n), onRejected: (r) => rejected.push(r) });
  for (let i = 0; i < rows.length; i += 13) await writer.add(rows.slice(i, i + 13));
  await writer.flush();
  const refused = rows.filter((r) => r.doc.n === 'x');
  assert.ok(refused.length > 0);
  assert.is(indexed, rows.length - refused.length);
  assert.equal(rejected.map((r) => [r.row, r.line]).sort((a, b) => a[0] - b[0]), refused.map((r) => [r.row, r.line]));
  for (const r of rejected) assert.is(r.issues[0]?.issue, 'rejected_by_elasticsearch');
  await es.indices.refresh({ index });
  const got = await es.search<{ name: string; n: number }>({ index, size: 1000 });
  const byId = new Map(got.hits.hits.map((h) => [h._id, h._source]));
  assert.is(byId.size, indexed);
  for (const r of rows) if (r.doc.n !== 'x') assert.equal(byId.get(r.id), r.doc, r.id);
});

test('pick: the request of some items holds exactly their actions, in order', () => {
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 30 }), (names, raw) => {
      const f = newFlight(16);
      const rows = names.map((name, i) => ({ row: i, line: i + 1, id: `p${i}`, doc: { name } }));
      for (const r of rows) addAction(f, r);
      const idx = [...new Set(raw.map((n) => n % names.length))].sort((a, b) => a - b);
      const p = pick(f, idx);
      const lines = p.body.subarray(0, p.size).toString('utf8').split('\n');
      assert.is(lines.pop(), '');
      assert.equal(lines, idx.flatMap((i) => [JSON.stringify({ index: { _id: `p${i}` } }), JSON.stringify(rows[i].doc)]));
      assert.equal(p.rows, idx);
      assert.is(p.ends.length, idx.length);
      assert.is(p.ends.at(-1) ?? 0, p.size);
    }),
  );
});

test.run();
