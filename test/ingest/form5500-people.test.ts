// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * People are people (issue 36, item 8), pure: splitPersonName on a labelled list of real
 * administrator and signer values, and one focused case per rule.
 *
 * test/fixtures/form5500/person-names.json holds 365 real values as filed (ADMIN_NAME,
 * ADMIN_SIGNED_NAME, SPONS_SIGNED_NAME, the manual-signature and DFE signer fields), each with
 * its source, labelled by hand: person or not, and for a person the first and last name as an
 * analyst would write them (particles in the last name; all-caps turned into title case; the
 * first name is the first given name, or the second when the first is only an initial, as in
 * "S. MICHAEL RIZZUTO"). 362 come from 1,000 DOL F_5500_2017_Latest rows published in a public
 * repository: every ADMIN_NAME, every signer value that is not a plain "FIRST LAST", and a sample
 * of the plain ones, so the list holds more hard cases than a year of filings does.
 * A value counts as right when it is classified right and, for a person, first and last match.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitPersonName } from '../../ingest/form5500/resolve.ts';

interface Labelled {
  raw: string;
  field: string;
  source: string;
  person: boolean;
  first?: string;
  last?: string;
}

const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'form5500', 'person-names.json');
const LABELLED: Labelled[] = JSON.parse(readFileSync(fixture, 'utf8'));

const right = (l: Labelled) => {
  const got = splitPersonName(l.raw);
  return l.person ? got !== null && got.first === l.first && got.last === l.last : got === null;
};

test('at least 0.98 of the real labelled values are classified and split right', () => {
  assert.ok(LABELLED.length >= 200, `${LABELLED.length} labelled values`);
  const wrong = LABELLED.filter((l) => !right(l));
  const persons = LABELLED.filter((l) => l.person);
  const share = (LABELLED.length - wrong.length) / LABELLED.length;
  console.log(
    `person names: ${LABELLED.length - wrong.length}/${LABELLED.length} right (${share.toFixed(3)}); ` +
      `persons ${persons.filter(right).length}/${persons.length}, ` +
      `not persons ${LABELLED.length - persons.length - wrong.filter((l) => !l.person).length}/${LABELLED.length - persons.length}`,
  );
  for (const l of wrong) console.log(`  wrong: ${JSON.stringify(l.raw)} → ${JSON.stringify(splitPersonName(l.raw))}`);
  assert.ok(share >= 0.98, `share right ${share.toFixed(3)} < 0.98`);
});

test.run();
