/**
 * The exact tier of `search`: a name typed exactly as stored (case aside), punctuation, accents
 * and legal suffix included, ranks first even when a twin differs only by a comma, an accent or a
 * suffix and is the larger company (the folded tiers cannot tell such twins apart).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadFixtures, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('search exact tier');
let h: Harness;
let secret = '';
let cleanup: () => Promise<void> = async () => {};

/** Twins: [id, name, employees]; the second of each pair is larger, so popularity cannot decide. */
const TWINS: [string, string, number][] = [
  ['tw1', 'Abebe Distributors, Inc.', 12],
  ['tw2', 'Abebe Distributors Inc.', 5000],
  ['tw3', 'Alvarez Studios', 15],
  ['tw4', 'Álvarez Studios Inc.', 4000],
  ['tw5', 'All-Star Group', 20],
  ['tw6', 'All-Star Group Co.', 3000],
];
const csvName = (n: string) => (n.includes(',') ? `"${n}"` : n);

t.before(async () => {
  h = await startHarness();
  const rows = TWINS.map(([id, name, employees]) => `${id},${csvName(name)},,,Offices of Physicians,TX,2024,${employees},${employees},5500,,,Medical\n`).join('');
  cleanup = await loadFixtures(h, { append: { companies: rows } });
  secret = (await withOrg(h, { milli: 10_000_000 })).secret;
});
t.after(async () => {
  await h.close();
  await cleanup();
});

t('each twin typed exactly (and in lower case) is the first result; its twin is in the top 3', async () => {
  for (const [id, name] of TWINS) {
    for (const typed of [name, name.toLowerCase()]) {
      const res = await h.call('GET', `/v1/companies?search=${encodeURIComponent(typed)}&page_size=3&fields=company_name`, { secret });
      assert.is(res.status, 200, JSON.stringify(res.body));
      const ids = res.body.data.map((r: { id: string }) => r.id);
      assert.is(ids[0], id, `${typed}: ${JSON.stringify(res.body.data)}`);
      const twin = TWINS[TWINS.findIndex((x) => x[0] === id) ^ 1][0];
      assert.ok(ids.includes(twin), `${typed}: twin ${twin} in the top 3`);
    }
  }
});

t.run();
