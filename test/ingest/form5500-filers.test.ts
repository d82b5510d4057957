// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Who files (issue 36, item 10): a direct filing entity (DFE: a collective trust, a pooled
 * separate account, a master trust, a 103-12 investment entity, a group insurance arrangement) is
 * not an employer. The full form says so on line A: `TYPE_PLAN_ENTITY_CD` 4 ("a DFE"), with the
 * DFE's kind in `TYPE_DFE_PLAN_ENTITY_CD` (M, C, P, E or G). Either one skips the filing; a plan
 * of a single, multiple or multiemployer sponsor (codes 1-3) is kept.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADD, emptyCollected } from '../../ingest/form5500/collect.ts';
import { FILING_COLUMNS } from '../../ingest/form5500/datasets.ts';

/** Filings kept and DFEs skipped among full-form filings with the given entity and DFE codes. */
function kept(codes: { entityCode: string; dfeCode: string }[]): { kept: number; dfe: number } {
  const c = emptyCollected();
  try {
    const blank = Object.fromEntries(Object.keys(FILING_COLUMNS).map((k) => [k, '']));
    codes.forEach((code, i) => {
      ADD.F_5500(c, 'F_5500', 2024, { ...blank, ...code, ack: `20250101000000P04000000000${String(i).padStart(4, '0')}`, ein: String(123456700 + i), planNum: '001', sponsorName: `Sponsor ${i}` });
    });
    return { kept: c.n, dfe: c.counts.dfe };
  } finally {
    c.close();
  }
}

test('a DFE as the DOL files it (entity code 4 and its kind) is skipped, not made an employer', () => {
  for (const kind of ['M', 'C', 'P', 'E', 'G']) assert.equal(kept([{ entityCode: '4', dfeCode: kind }]), { kept: 0, dfe: 1 }, `DFE kind ${kind}`);
});

test('entity code 4 alone, or a DFE kind alone, is a DFE too', () => {
  assert.equal(kept([{ entityCode: '4', dfeCode: '' }]), { kept: 0, dfe: 1 });
  assert.equal(kept([{ entityCode: '', dfeCode: 'C' }]), { kept: 0, dfe: 1 });
});

test('plans of single-employer, multiple-employer and multiemployer sponsors are kept', () => {
  assert.equal(kept([{ entityCode: '1', dfeCode: '' }, { entityCode: '2', dfeCode: '' }, { entityCode: '3', dfeCode: '' }, { entityCode: '', dfeCode: '' }]), { kept: 4, dfe: 0 });
});

test.run();
