/**
 * Parameter fuzzing: random (and hostile) query strings on every list, detail and lookup
 * route never produce a 500, always answer in the envelope, and never charge a rejected call.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { loadFixtures, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('fuzz');
const org = `org-${randomUUID().slice(0, 8)}`;
let h: Harness;
let cleanup: () => Promise<void> = async () => {};
let secret = '';

const NAMES = [
  'page', 'page_size', 'sort_by', 'sort_dir', 'mode', 'fields', 'format', 'count_only', 'include_count', 'dry_run', 'search',
  'signals', 'signal_match', 'states', 'dmas', 'geo_mode', 'tags', 'cf[total_number_of_employees]', 'cf[company_name]',
  'cf[participant_growth]', 'cf[email_address]', 'cf[]', 'cf[email]', 'eb[website]', 'eb[nope]', 'lead_type', 'industries',
  'employee_bands', 'funding_status', 'short_form', 'filing_year', 'broker_office', 'domain', 'seniority', 'job_function',
  'has_email', 'person_states', 'company_eins', 'broker_ids', 'client_count_bands', 'brokerage_class', 'name', 'ein', 'x',
];
const VALUES = fc.oneof(
  fc.constantFrom('', '0', '-1', '25', '26', '500', '501', '1e9', 'true', 'false', 'asc', 'desc', 'basic', 'full', 'light', 'flat', 'json',
    'TX,ca', 'Texas', 'gte:10', 'lt:-5', 'gte:', 'gte:abc', 'C-suite', 'company', 'broker', 'latest', '2024', 'Offices of Physicians',
    '%', '*', '?', '\\', '"', "'", '<script>', '../../etc', 'a,b,,c', '💡', 'null', '[]', '{}', 'a'.repeat(3000)),
  fc.string({ maxLength: 40 }),
);
const QUERY = fc.array(fc.tuple(fc.constantFrom(...NAMES), VALUES), { maxLength: 6 });
const PATHS = ['/v1/companies', '/v1/personnel', '/v1/brokers', '/v1/broker-offices', '/v1/companies/c1', '/v1/personnel/p1', '/v1/companies/lookup', '/v1/brokers/lookup'];

t.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '100000', BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  cleanup = await loadFixtures(h);
  secret = (await withOrg(h, { org, milli: 1_000_000_000 })).secret;
});
t.after(async () => {
  await h.close();
  await cleanup();
});

t('no query string makes a 500; errors are enveloped and charge nothing', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...PATHS), QUERY, async (path, pairs) => {
      const qs = pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&');
      const before = await h.running.services.credits.balance(org);
      const res = await h.call('GET', `${path}?${qs}`, { secret });
      assert.ok(res.status < 500, `${path}?${qs} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      assert.type(res.body, 'object', `${path}?${qs} is JSON`);
      if (res.status >= 400) {
        assert.is(res.body.ok, false);
        assert.equal(res.body.meta, { credits_charged: 0 });
        assert.is(await h.running.services.credits.balance(org), before, 'a rejected call never charges');
      } else {
        assert.is(res.body.ok, true);
        assert.is(Math.round(res.body.meta.credits_charged * 1000), before - (await h.running.services.credits.balance(org)), 'charged what meta says');
      }
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
  );
});

t.run();
