// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compactName, foldText, normalizeDomain, normalizeEin, normalizeName } from '../../mappings/normalize.ts';
import { seniorityLevels } from '../../mappings/reference.ts';

test('foldText folds accents, case, punctuation and ampersands', () => {
  assert.is(foldText('Café Lumière, S.A.'), 'cafe lumiere s a');
  assert.is(foldText('Smith & Sons'), 'smith and sons');
  assert.is(foldText("O'Brien-Núñez"), 'obrien nunez');
  // Letters Unicode does not decompose still fold (they sorted after "z" before: Łukasik after Turner).
  assert.is(foldText('Łukasik Đặng Søndergaard Straße Ærø Œuvre Þór'), 'lukasik dang sondergaard strasse aero oeuvre thor');
  for (const s of ['Łukasik', 'Đặng', 'Søndergaard', 'Æsir']) assert.ok(/^[a-z0-9 ]+$/.test(foldText(s)), s);
});

test('normalizeName drops legal suffixes and a leading "the", but never the whole name', () => {
  assert.is(normalizeName('Acme Healthcare, Inc.'), 'acme healthcare');
  assert.is(normalizeName('The Acme Company LLC'), 'acme');
  assert.is(normalizeName('Acme Corp'), normalizeName('ACME Corporation'));
  assert.is(normalizeName('Inc'), 'inc');
  assert.is(compactName('Acme Health LLC'), 'acmehealth');
});

test('normalizeDomain strips scheme, www, path, port and case', () => {
  for (const s of ['https://www.Acme.com/about', 'http://acme.com:8080', 'WWW.ACME.COM', 'acme.com.', 'mailto:jo@acme.com', 'acme.com?x=1']) {
    assert.is(normalizeDomain(s), 'acme.com', s);
  }
  assert.is(normalizeDomain('not a domain'), '');
  assert.is(normalizeDomain('https://www2.sub.acme.co.uk/x'), 'sub.acme.co.uk');
});

test('normalizeEin keeps 9-digit strings only', () => {
  assert.is(normalizeEin('12-3456789'), '123456789');
  assert.is(normalizeEin('012345678'), '012345678');
  assert.is(normalizeEin('1234'), '');
  assert.is(normalizeEin('12345678a'), '');
});


test('seniorityLevels: the seniority value plus the levels whose title words the title holds (whole words)', () => {
  assert.equal(seniorityLevels('', 'Chief Executive Officer'), ['C-suite']);
  assert.equal(seniorityLevels(null, 'Owner'), ['C-suite']);
  assert.equal(seniorityLevels('', 'Vice President, Employee Benefits'), ['VP-Director'], 'President, but not Vice President');
  assert.equal(seniorityLevels('', 'Director of Operations'), ['VP-Director'], '"cto" is not a word of "Director"');
  assert.equal(seniorityLevels('Mid-Level', 'Benefits Manager'), ['Mid-Level']);
  assert.equal(seniorityLevels('Entry-Level', 'Executive Assistant'), ['Entry-Level']);
  assert.equal(seniorityLevels('C-suite', 'Managing Partner'), ['C-suite']);
  assert.equal(seniorityLevels('', 'Director, HR Manager'), ['VP-Director', 'Mid-Level'], 'adjacent titles can be included');
  assert.equal(seniorityLevels('Nope', ''), []);
});

test.run();
