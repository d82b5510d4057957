// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Entity resolution of Schedule A Part I lines (pure), as the import resolves them
 * (resolveBrokers): variants of one firm name and one address resolve to one firm and one
 * office; another city or another firm never shares the office. Signer names split by the
 * documented rule.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { resolveBrokers } from '../../ingest/form5500/broker-resolution.ts';
import { splitPersonName, stableId } from '../../ingest/form5500/resolve.ts';

const NAMES = ['1ST GLOBAL CAPITAL', 'SMITH & JONES INSURANCE', 'ACME BENEFITS GROUP', 'NORTH STAR RISK PARTNERS'];
const STREETS = [['100', 'MAIN', 'STREET', 'ST'], ['2500', 'OAK', 'AVENUE', 'AVE'], ['77', 'LAKE SHORE', 'BOULEVARD', 'BLVD']] as const;
const CITIES = [['DALLAS', 'TX', '75201'], ['ST LOUIS', 'MO', '63101'], ['BOSTON', 'MA', '02110']] as const;

/** One way a filer writes a firm name: suffix, '&' spelled out, punctuation, case. */
const nameVariant = (name: string) =>
  fc.record({ suffix: fc.constantFrom('', ' CORP', ', INC.', ' LLC', ' Co.'), and: fc.boolean(), lower: fc.boolean(), dots: fc.boolean() }).map((v) => {
    let n = name + v.suffix;
    if (v.and) n = n.replace(/&/g, 'AND');
    if (v.dots) n = n.replace(/ /, '. ');
    return v.lower ? n.toLowerCase() : n;
  });

/** One way a filer writes an address: street type long or short, the unit as SUITE, STE, STE. or #, inline or on line 2, ZIP or ZIP+4. */
const addressVariant = (s: (typeof STREETS)[number], suite: string, c: (typeof CITIES)[number]) =>
  fc.record({ long: fc.boolean(), unit: fc.constantFrom('SUITE ', 'STE ', 'STE. ', '#', 'Suite #'), inline: fc.boolean(), plus4: fc.boolean(), saint: fc.boolean() }).map((v) => {
    const street = `${s[0]} ${s[1]} ${v.long ? s[2] : s[3]}`;
    const unit = `${v.unit}${suite}`;
    const city = v.saint ? c[0].replace(/^ST /, 'SAINT ') : c[0];
    return { address1: v.inline ? `${street}, ${unit}` : street, address2: v.inline ? '' : unit, city, state: c[1], zip: v.plus4 ? `${c[2]}-4321` : c[2] };
  });

test('variants of one name and one address resolve to one office and one firm', () => {
  fc.assert(
    fc.property(fc.nat(NAMES.length - 1), fc.nat(STREETS.length - 1), fc.nat(CITIES.length - 1), fc.constantFrom('1200', '300', 'B'), (n, s, c, suite) =>
      fc.assert(
        fc.property(nameVariant(NAMES[n]), nameVariant(NAMES[n]), addressVariant(STREETS[s], suite, CITIES[c]), addressVariant(STREETS[s], suite, CITIES[c]), (na, nb, a, b) => {
          const [ra, rb] = resolveBrokers([{ name: na, ...a }, { name: nb, ...b }]);
          assert.is(ra.firm, rb.firm, `${na} / ${nb}`);
          assert.ok(ra.office !== null, JSON.stringify(a));
          assert.is(ra.office, rb.office, `${JSON.stringify(a)} / ${JSON.stringify(b)}`);
        }),
        { numRuns: 20 },
      ),
    ),
    { numRuns: 40 },
  );
});

test('another city or another firm is another office', () => {
  fc.assert(
    fc.property(fc.nat(STREETS.length - 1), fc.nat(CITIES.length - 1), fc.nat(CITIES.length - 1), (s, c, c2) => {
      fc.pre(c !== c2);
      const a = fc.sample(addressVariant(STREETS[s], '1200', CITIES[c]), 1)[0];
      const city = fc.sample(addressVariant(STREETS[s], '1200', CITIES[c2]), 1)[0];
      const [here, there, other] = resolveBrokers([{ name: NAMES[0], ...a }, { name: NAMES[0], ...city }, { name: NAMES[2], ...a }]);
      assert.is.not(here.office, there.office);
      assert.is.not(here.office, other.office);
      assert.is.not(here.firm, other.firm);
    }),
    { numRuns: 50 },
  );
});

test('worked examples: PO boxes, no address, stable ids', () => {
  const [a, b, none] = resolveBrokers([
    { name: '1ST GLOBAL CAPITAL CORP', address1: 'P.O. BOX 55', address2: '', city: 'DALLAS', state: 'TX', zip: '75201' },
    { name: '1st Global Capital', address1: 'PO Box 55', address2: '', city: 'Dallas', state: 'TX', zip: '75201-1234' },
    { name: '1ST GLOBAL CAPITAL', address1: '', address2: '', city: '', state: '', zip: '' },
  ]);
  assert.is(a.firm, b.firm);
  assert.is(a.office, b.office);
  assert.is(none.firm, a.firm);
  assert.is(none.office, null, 'a line with no address attaches to the firm only');
  assert.is(stableId('firm', 'x'), stableId('firm', 'x'));
  assert.is.not(stableId('firm', 'x'), stableId('office', 'x'));
});

test('signer names: honorifics, suffixes, LAST, FIRST and organisations', () => {
  assert.equal(splitPersonName('SMITH, JOHN Q'), { first: 'John', last: 'Smith', full: 'John Q Smith' });
  assert.equal(splitPersonName('MS. JANE DOE-O\'BRIEN JR'), { first: 'Jane', last: "Doe-O'Brien", full: "Jane Doe-O'Brien" });
  assert.equal(splitPersonName('María López'), { first: 'María', last: 'López', full: 'María López' });
  assert.is(splitPersonName('ACME BENEFITS COMMITTEE'), null);
  assert.is(splitPersonName('MADONNA'), null);
});

test.run();
