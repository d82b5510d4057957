/**
 * POST /v1/personnel/batch asks Elasticsearch for what it can answer and no more: at most 500
 * contacts in all over its EINs (not page_size for each of 50 EINs), only the fields the answer
 * carries, and on a dry run counts without documents. Measured as the bytes Elasticsearch sends
 * back, through a TCP proxy between the server and Elasticsearch (test/helpers/tcp-proxy.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { loadFixtures, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('personnel batch fetch');
let h: Harness;
let proxy: TcpProxy;
let cleanup: () => Promise<void>;
let secret = '';

const contacts = (company: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${company}x${i},Pat,Batch${String(i).padStart(4, '0')},Pat Batch${i},Benefits Analyst,Mid-Level,company,${company},,pat${i}@${company}.example\n`).join('');

t.before(async () => {
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(process.env.ES_URL || 'http://127.0.0.1:9200').port || 9200) });
  h = await startHarness({ ES_URL: proxy.url, BINTEL_CACHE_TTL_S: '0' });
  cleanup = await loadFixtures(h, { append: { personnel: contacts('c1', 600) + contacts('c2', 100) } });
  secret = (await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 })).secret;
});
t.after(async () => {
  await cleanup();
  await h.close();
  await proxy.close();
});

/** The call's answer and the bytes Elasticsearch sent for it. */
async function measured(path: string, body: unknown): Promise<{ bytes: number; res: Awaited<ReturnType<Harness['call']>> }> {
  const before = proxy.received;
  const res = await h.call('POST', path, { secret, body });
  assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  return { bytes: proxy.received - before, res };
}

const BOTH = { company_eins: ['12-3456789', '987654321'], lead_type: 'company', page_size: 500 };

t('a dry run counts: no documents fetched, the same rows estimated', async () => {
  const real = await measured('/v1/personnel/batch?mode=full', BOTH);
  const dry = await measured('/v1/personnel/batch?mode=full&dry_run=true', BOTH);
  assert.is(dry.res.body.meta.estimated_rows, real.res.body.meta.returned);
  assert.ok(dry.bytes * 20 < real.bytes, `dry run: ${dry.bytes} bytes from Elasticsearch, the real call ${real.bytes}`);
});

t('only the fields the answer carries are fetched', async () => {
  const full = await measured('/v1/personnel/batch?mode=full', { ...BOTH, company_eins: ['12-3456789'] });
  const names = await measured('/v1/personnel/batch?fields=full_name', { ...BOTH, company_eins: ['12-3456789'] });
  assert.is(names.res.body.meta.returned, full.res.body.meta.returned);
  assert.ok(names.bytes * 2 < full.bytes, `fields=full_name: ${names.bytes} bytes, mode=full ${full.bytes}`);
});

t('at most 500 contacts are fetched in all: EINs past the answer are not read', async () => {
  const one = await measured('/v1/personnel/batch?mode=full', { ...BOTH, company_eins: ['12-3456789'] });
  const two = await measured('/v1/personnel/batch?mode=full', BOTH);
  assert.is(two.res.body.meta.returned, 500);
  assert.is(two.res.body.meta.truncated, true);
  assert.equal(two.res.body.data.map((g: { contacts: unknown[] }) => g.contacts.length), [500, 0]);
  // The second EIN's 100 contacts (a fifth more) are left in Elasticsearch.
  assert.ok(two.bytes < one.bytes * 1.1, `two EINs: ${two.bytes} bytes, the first alone ${one.bytes}`);
});

t.run();
