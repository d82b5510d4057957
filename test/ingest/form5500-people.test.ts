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

const is = (raw: string, first: string, last: string) => {
  const got = splitPersonName(raw);
  assert.ok(got, `${raw} is a person`);
  assert.equal([got.first, got.last], [first, last], raw);
};
const notPerson = (raw: string) => assert.is(splitPersonName(raw), null, raw);

/** A test of names each split into the given first and last name. */
const splits = (title: string, cases: readonly (readonly [raw: string, first: string, last: string])[]) =>
  test(title, () => {
    for (const [raw, first, last] of cases) is(raw, first, last);
  });

test('"LAST, FIRST M" is turned around; "FIRST M LAST JR" drops the suffix', () => {
  assert.equal(splitPersonName('SMITH, JOHN Q'), { first: 'John', last: 'Smith', full: 'John Q Smith' });
  is('VAN DER BERG, JOHN', 'John', 'Van Der Berg');
  is('SMITH JR, JOHN', 'John', 'Smith');
  assert.equal(splitPersonName('JOHN Q SMITH JR'), { first: 'John', last: 'Smith', full: 'John Q Smith' });
});

test('titles after a comma or a spaced dash and parenthesised roles are dropped; a title alone is no one', () => {
  for (const raw of ['JOHN SMITH, PRESIDENT', 'JOHN SMITH - CFO', 'JOHN SMITH – MANAGING MEMBER', 'JOHN SMITH (TRUSTEE)', 'JOHN SMITH, VICE PRESIDENT, HR']) {
    assert.equal(splitPersonName(raw), { first: 'John', last: 'Smith', full: 'John Smith' }, raw);
  }
  for (const raw of ['PRESIDENT', 'TRUSTEE', 'PLAN ADMINISTRATOR', 'VICE PRESIDENT - HR', 'CFO (TRUSTEE)']) notPerson(raw);
});

test('signature marks are taken off', () => {
  for (const raw of ['/S/ JOHN SMITH', 'S/JOHN SMITH', '/S/JOHN SMITH', 'JOHN SMITH /S/', 'Electronically signed by John Smith', 'SIGNED BY: JOHN SMITH']) {
    is(raw, 'John', 'Smith');
  }
});

splits('honorifics, generational suffixes and credentials are dropped', [
  ['DR. JANE DOE', 'Jane', 'Doe'],
  ['MR JOHN SMITH', 'John', 'Smith'],
  ['JOHN SMITH III', 'John', 'Smith'],
  ['JANE DOE, CPA', 'Jane', 'Doe'],
  ['JOHN SMITH JR CPA', 'John', 'Smith'],
  ['BRIAN J. ROSENZWEIG, D.M.D.', 'Brian', 'Rosenzweig'],
  ['OSCAR O NELSON JR', 'Oscar', 'Nelson'],
]);

splits('all-caps names come out in title case: Mc, O\', hyphens; mixed case is kept', [
  ['PATRICK MCDONALD', 'Patrick', 'McDonald'],
  ["SEAN O'BRIEN", 'Sean', "O'Brien"],
  ['JOHN MC DONALD', 'John', 'McDonald'],
  ["SEAN O' BRIEN", 'Sean', "O'Brien"],
  ['MARY SMITH-JONES', 'Mary', 'Smith-Jones'],
  ["MICHAEL D'AMBROSIO", 'Michael', "D'Ambrosio"],
  ['María López', 'María', 'López'],
  ['Mary van der Berg', 'Mary', 'van der Berg'],
]);

splits('particles stay part of the last name', [
  ['JOHN VAN DER BERG', 'John', 'Van Der Berg'],
  ['ANA DE LA CRUZ', 'Ana', 'De La Cruz'],
  ['JOSE DEL RIO', 'Jose', 'Del Rio'],
  ['NICHOLAS J. DI BONA', 'Nicholas', 'Di Bona'],
  ['MARIA DA SILVA', 'Maria', 'Da Silva'],
  ['PIERRE LE BLANC', 'Pierre', 'Le Blanc'],
  ['MARY LA ROSA', 'Mary', 'La Rosa'],
  ['ANNE DU PONT', 'Anne', 'Du Pont'],
  ['LUDWIG VON MISES', 'Ludwig', 'Von Mises'],
  ['JAMES ST. JOHN', 'James', 'St. John'],
  ['STACEY VAN LENTE', 'Stacey', 'Van Lente'],
]);

splits('an initial first name gives way to the given name after it; a compound surname after a middle initial stays whole', [
  ['S. MICHAEL RIZZUTO', 'Michael', 'Rizzuto'],
  ['D A MORCK', 'D', 'Morck'],
  ['CARMEN L. JORDAN RIVERA', 'Carmen', 'Jordan Rivera'],
  ['CHRISTOPHER JORDAN COOKMAN', 'Christopher', 'Cookman'],
]);

test('organisations, placeholders and single words are not people', () => {
  for (const raw of [
    'ACME INC', 'ACME, LLC', 'ACME CORP', 'ACME CO.', 'SMITH & CO', 'BEST TPA', 'ADP PAYROLL', 'FLEX BENEFITS', 'BENEFIT ADMINISTRATORS',
    'XYZ CONSULTING', 'SMITH ASSOCIATES', 'JONES & ASSOCIATES', 'STEVEN D. ELIAS, P.A.', 'SARAH J. CAMPBELL, DDS, PC', 'ISAAC BLUMBERG, CPAS',
    'SAME', 'NONE', 'N/A', 'BOARD OF TRUSTEES', 'SEE ATTACHED', 'ACME BENEFITS COMMITTEE', 'FIRST BAPTIST CHURCH', 'PLUMFIELD CHILDRENS CENTER',
    'DATCARD SYSTEMS', 'MUSKINGUM UNIVERSITY', 'C/O ACCOUNTING AND COMPLIANCE INTERNATIONAL', '3(16) FIDUCIARY SERVICES CORPORATION', 'MADONNA', '',
  ]) notPerson(raw);
});

splits('surnames that are words stay people: the organisation rules look at structure', [
  ['JOHN CHURCH', 'John', 'Church'],
  ['MARY BANKS', 'Mary', 'Banks'],
  ['MARY CENTER', 'Mary', 'Center'],
  ['BRENT T. SALES', 'Brent', 'Sales'],
  ['WILLIAM B. CHURCH, JR.', 'William', 'Church'],
  ['THERESA FRESH', 'Theresa', 'Fresh'],
  ['MARSHALL H. DEAN', 'Marshall', 'Dean'],
]);

test.run();
