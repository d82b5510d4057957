// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Premiums of a Schedule A welfare contract, as the DOL's form puts them (issue 36, item 2): an
 * experience-rated contract reports premium on line 9a (earned, 9a(1)(d): WLFR_TOT_EARNED_PREM_AMT;
 * received, 9a(1)(a): WLFR_PREMIUM_RCVD_AMT), a non-experience-rated one on line 10a
 * (WLFR_TOT_CHARGES_PAID_AMT: most fully insured small and mid-size contracts). The first
 * positive of the three is the premium: a filed 0 never hides a positive sibling.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADD, emptyCollected } from '../../ingest/form5500/collect.ts';
import { FILING_COLUMNS, SCH_A_COLUMNS } from '../../ingest/form5500/datasets.ts';

const ACK = '20240101123456P040012345678001';

/** One kept full-form filing and the given Schedule A contracts (facts by column name). */
function premiumOf(contracts: Record<string, string>[]): number {
  const c = emptyCollected();
  try {
    // Every fact of a filing as the reader gives it (blank when the file has it empty).
    const blank = Object.fromEntries(Object.keys(FILING_COLUMNS).map((k) => [k, '']));
    ADD.F_5500(c, 'F_5500', 2024, { ...blank, ack: ACK, ein: '123456789', planNum: '501', sponsorName: 'Acme Healthcare Inc.', welfareCodes: '4A' });
    const fact = Object.fromEntries(Object.entries(SCH_A_COLUMNS).map(([k, col]) => [col, k]));
    contracts.forEach((cols, i) => {
      const facts: Record<string, string> = { ...Object.fromEntries(Object.keys(SCH_A_COLUMNS).map((k) => [k, ''])), ack: ACK, formId: String(i + 1) };
      for (const [col, v] of Object.entries(cols)) {
        assert.ok(fact[col], `the importer reads ${col}`);
        facts[fact[col]] = v;
      }
      ADD.F_SCH_A(c, 'F_SCH_A', 2024, facts);
    });
    c.endReading();
    return c.premium[0];
  } finally {
    c.close();
  }
}

test('line 10a is a premium: a non-experience-rated contract whose earned premium is filed as 0', () => {
  assert.is(premiumOf([{ WLFR_TOT_EARNED_PREM_AMT: '0', WLFR_PREMIUM_RCVD_AMT: '0', WLFR_TOT_CHARGES_PAID_AMT: '184500' }]), 184500);
  assert.is(premiumOf([{ WLFR_TOT_CHARGES_PAID_AMT: '92000' }]), 92000);
});

test('the first positive of earned (9a), received (9a) and charges paid (10a); blanks and zeros never hide a positive', () => {
  assert.is(premiumOf([{ WLFR_TOT_EARNED_PREM_AMT: '5000', WLFR_PREMIUM_RCVD_AMT: '7000', WLFR_TOT_CHARGES_PAID_AMT: '9000' }]), 5000);
  assert.is(premiumOf([{ WLFR_TOT_EARNED_PREM_AMT: '0', WLFR_PREMIUM_RCVD_AMT: '7000' }]), 7000);
  assert.is(premiumOf([{ WLFR_TOT_EARNED_PREM_AMT: '', WLFR_PREMIUM_RCVD_AMT: '0', WLFR_TOT_CHARGES_PAID_AMT: '3000' }]), 3000);
  assert.is(premiumOf([{ WLFR_TOT_EARNED_PREM_AMT: '0', WLFR_PREMIUM_RCVD_AMT: '', WLFR_TOT_CHARGES_PAID_AMT: '0' }]), 0);
  assert.is(premiumOf([{}]), 0, 'a contract with no premium line filled adds nothing');
});

test('a filing\'s premium is the sum over its contracts, each by its own line', () => {
  const contracts: Record<string, string>[] = [
    { WLFR_TOT_EARNED_PREM_AMT: '0', WLFR_TOT_CHARGES_PAID_AMT: '12000' },
    { WLFR_PREMIUM_RCVD_AMT: '3000', WLFR_TOT_CHARGES_PAID_AMT: '0' },
    { WLFR_TOT_EARNED_PREM_AMT: '5000', WLFR_PREMIUM_RCVD_AMT: '7000' },
    {},
  ];
  assert.is(premiumOf(contracts), 20000);
});

test.run();
