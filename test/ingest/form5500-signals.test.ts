// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Signals computed from the filings (pure): due dates with and without extensions, the renewal
 * window from the day of the import, change signals against the year before, peer thresholds.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Filing } from '../../ingest/form5500/collect.ts';
import { daysToRenewal, lateFiler, peerThresholds, signalsOf, type YearFacts } from '../../ingest/form5500/signals.ts';

const filing = (over: Partial<Filing>): Filing => ({ received: '2024-07-31', planYearEnd: '2023-12-31', extension: false, specialExtension: false, amended: false, ...over }) as Filing;
const facts = (over: Partial<YearFacts> = {}): YearFacts => ({
  largestSlot: 0, participants: 100, employees: 100, premiums: 100_000, commissions: 0, cost: 1000, carriers: new Map([['aetna', 'AETNA']]), medicalCarrier: 'naic:60054',
  benefits: [], funding: 'Fully Insured', fundingByBenefit: [], renewalFrom: '2023-01-01', primaryFirm: 'a', primaryOffice: null, officeIds: [], initial: false, late: false,
  ended: false, ...over,
});
const noPeers = { costP90: null, growthMedian: null };

test('late_filer: the seventh month after the plan year, the 15th of the tenth with an extension', () => {
  assert.is(lateFiler(filing({})), false);
  assert.is(lateFiler(filing({ received: '2024-08-01' })), true);
  assert.is(lateFiler(filing({ received: '2024-10-15', extension: true })), false);
  assert.is(lateFiler(filing({ received: '2024-10-16', extension: true })), true);
  assert.is(lateFiler(filing({ received: '2025-01-01', specialExtension: true })), false);
  assert.is(lateFiler(filing({ planYearEnd: '2023-06-30', received: '2024-01-31' })), false);
  assert.is(lateFiler(filing({ planYearEnd: '2023-06-30', received: '2024-02-01' })), true);
});

test('renewal window: the next anniversary of the policy start, from the day of the import', () => {
  assert.is(daysToRenewal('2023-03-01', '2024-01-15'), 46);
  assert.is(daysToRenewal('2023-01-01', '2024-01-15'), 352);
  assert.equal(signalsOf({ now: facts({ renewalFrom: '2023-03-01' }), prior: null, growth: null, newSponsor: false, peers: noPeers, today: '2024-01-15' }), ['renewal_window']);
});

test('change signals need the year before; likely_to_switch combines the renewal window with a change', () => {
  const prior = facts({ primaryFirm: 'b', carriers: new Map([['cigna', 'CIGNA']]), medicalCarrier: 'naic:62308', funding: 'Self-Funded' });
  const s = signalsOf({ now: facts({ renewalFrom: '2023-02-01' }), prior, growth: 25, newSponsor: false, peers: noPeers, today: '2024-01-15' });
  assert.equal(s.sort(), ['broker_change', 'carrier_change', 'funding_change', 'headcount_change', 'likely_to_switch', 'renewal_window']);
  assert.equal(signalsOf({ now: facts(), prior: null, growth: null, newSponsor: false, peers: noPeers, today: '2024-06-01' }), []);
});

test('peer thresholds: subsector first, sector when the subsector has too few peers', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ path: ['S', i < 12 ? 'A' : 'B', 'x'], cost: i + 1, growth: i }));
  const peers = peerThresholds(rows);
  assert.equal(peers(['S', 'A', 'x']), { costP90: 11, growthMedian: 6 });
  assert.equal(peers(['S', 'B', 'x']), { costP90: 19, growthMedian: 10 }, 'B has 8 peers: the sector decides');
  assert.equal(peers(['T', 'C', 'x']), { costP90: null, growthMedian: null });
  assert.ok(signalsOf({ now: facts({ premiums: 1200, participants: 100, cost: 12 }), prior: null, growth: 1, newSponsor: false, peers: peers(['S', 'A', 'x']), today: '2024-06-01' }).includes('high_cost_plan'));
});

test.run();
