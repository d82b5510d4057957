/**
 * An Idempotency-Key claim lives as long as the record it names, for every kind that takes one:
 * a retry while the record exists answers that record and charges nothing. Before, every claim
 * lived 7 days while writing jobs live 30 (BINTEL_WRITING_RETENTION_DAYS) and reports are kept
 * until resolved and after: a retry on day 8 created, and charged, a second job.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('claim-lifetime');
let h: Harness;
let data: DataFiles | undefined;

const EMAIL = {
  source_mode: 'inline',
  channel: 'email',
  identity: { companyName: 'Northwind Benefits', versionName: 'Q4', valueProps: [{ id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' }] },
  target: { full_name: 'Dana Whitfield', title: 'VP People', company_name: 'Contoso Ltd' },
  sender: { full_name: 'Sam Reyes', title: 'Partner', company_name: 'Northwind Benefits' },
};

t.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  data = await loadGenerated(h, { companies: 30, personnel: 10, brokerOffices: 4, brokers: 2, seed: 5 });
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

/** TTL in seconds of a Redis key (-1: kept until deleted). */
const ttl = (key: string) => h.running.services.redis.ttl(key);

t('each kind\'s claim lives as long as its record (no shorter by more than a minute)', async () => {
  const { org, key, secret } = await withOrg(h, { milli: 10_000_000 });
  const { rk } = h.running.services;
  const cases = [
    { kind: 'exports', path: '/v1/exports', body: { resource: 'companies', max_rows: 5 }, record: (id: string) => rk.exportJob(org, id) },
    { kind: 'writing', path: '/v1/writing-jobs', body: EMAIL, record: (id: string) => rk.writingJob(org, id) },
    { kind: 'report', path: '/v1/reports', body: { endpoint: 'GET /v1/companies', message: 'claim lifetime' }, record: (id: string) => rk.feedback(org, 'report', id) },
  ];
  for (const c of cases) {
    const idem = `claim-${c.kind}`;
    const res = await h.call('POST', c.path, { secret, body: c.body, headers: { 'Idempotency-Key': idem } });
    assert.ok(res.status === 201 || res.status === 202, `${c.path}: ${res.status} ${JSON.stringify(res.body)}`);
    const [claimTtl, recordTtl] = await Promise.all([ttl(rk.idemClaim(org, key.user, c.kind, idem)), ttl(c.record(res.body.data.id))]);
    assert.ok(claimTtl !== -2 && recordTtl !== -2, `${c.kind}: claim ${claimTtl}, record ${recordTtl} exist`);
    if (recordTtl === -1) assert.is(claimTtl, -1, `${c.kind}: the record is kept until deleted, so is its claim (claim TTL ${claimTtl} s)`);
    else assert.ok(claimTtl === -1 || claimTtl >= recordTtl - 60, `${c.kind}: claim ${claimTtl} s, record ${recordTtl} s`);
    // And the retry answers the first record, charging nothing more.
    const before = await h.running.services.credits.balance(org);
    const again = await h.call('POST', c.path, { secret, body: c.body, headers: { 'Idempotency-Key': idem } });
    assert.is(again.status, 200, `${c.kind} retry: ${JSON.stringify(again.body)}`);
    assert.is(again.body.data.id, res.body.data.id);
    assert.is(await h.running.services.credits.balance(org), before);
  }
});

t.run();
