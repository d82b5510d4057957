/**
 * Organisation names (plan sponsors and brokerages) and what derives from a name: the
 * domain, the LinkedIn slug.
 */
import { US_STATES, type BROKERAGE_CLASSES } from '../../mappings/reference.ts';
import { asciiLower, slug } from './format.ts';
import { cityName, cityState } from './geo.ts';
import { FIRST_NAMES, surname } from './names.ts';
import { type Rng, Weighted } from './prng.ts';
import {
  brandWord, CITY_WORDS, GENERIC_WORDS, PLACE_WORDS, STATE_WORDS, industryWords, initials, legalSuffix,
} from './words.ts';

export type BrokerageClass = (typeof BROKERAGE_CLASSES)[number];

const PRACTICE = /^(5411|5412|6211|6212)/;
const STANDALONE_BRAND = /^(72|44|45|81|71)/;

/** An organisation name, and its base: the name without the legal suffix. */
export interface OrgName {
  readonly name: string;
  readonly base: string;
}

/** A plan sponsor's name, fitting its industry (NAICS code) and city. */
export function companyName(rng: Rng, code: string, city: number): OrgName {
  const w = rng.pick(industryWords(code));
  let suffix = legalSuffix(rng, code);
  const r = rng.next();
  let base: string;
  if (r < 0.28) base = `${surname(rng)} ${w}`;
  else if (r < 0.38) base = `${rng.chance(0.5) ? cityName(city) : rng.pick(PLACE_WORDS)} ${w}`;
  else if (r < 0.48) {
    const a = surname(rng);
    const b = surname(rng);
    if (!PRACTICE.test(code)) base = `${a} & ${b} ${w}`;
    else base = rng.chance(0.4) ? `${a}, ${b} & ${surname(rng)}` : `${a} & ${b}`;
  } else if (r < 0.55) {
    const s = surname(rng);
    const kind = rng.int(0, 3);
    if (kind === 0) {
      base = `${s} & Sons`;
      suffix = rng.chance(0.6) ? ', Inc.' : '';
    } else base = kind === 1 ? `${s} & Sons ${w}` : kind === 2 ? `${s} Brothers ${w}` : `${s} Family ${w}`;
  } else if (r < 0.69) base = `${brandWord(rng)} ${w}`;
  else if (r < 0.74) base = `${initials(rng)} ${w}`;
  else if (r < 0.81) base = `${brandWord(rng)} ${rng.pick(GENERIC_WORDS)}`;
  else if (r < 0.87) base = `${surname(rng)} ${rng.pick(GENERIC_WORDS)}`;
  else if (r < 0.91) {
    base = `The ${surname(rng)} ${rng.pick(['Group', 'Company', 'Companies', 'Organization', 'Agency'])}`;
    suffix = '';
  } else if (r < 0.95) base = `${rng.chance(0.5) ? US_STATES[cityState(city)] : rng.pick(STATE_WORDS)} ${w}`;
  else if (r < 0.97 && STANDALONE_BRAND.test(code)) {
    base = brandWord(rng);
    suffix = rng.chance(0.5) ? ' LLC' : '';
  } else if (r < 0.985) base = `${rng.pick(FIRST_NAMES)} ${surname(rng)} ${w}`;
  else base = `${rng.pick(CITY_WORDS)} ${brandWord(rng)} ${w}`;
  return { name: base + suffix, base };
}

const BROKER_TAIL = new Weighted<string>([
  [' Insurance Group', 10], [' Insurance Agency', 8], [' Benefits', 6], [' Benefits Group', 6], [' Benefit Advisors', 6],
  [' Insurance Services', 6], [' Financial Group', 4], [' Risk & Benefits', 3], [' Employee Benefits', 5],
  [' Benefits Consulting', 4], [' Insurance & Benefits', 3], [' & Associates', 3], [' Risk Partners', 3], [' Agency', 2],
]);
const BROKER_SUFFIX = new Weighted<string>([['', 10], [', Inc.', 4], [' Inc.', 3], [' LLC', 6], [', LLC', 1]]);

/** A brokerage's name: national players sound like national firms, locals like agencies. */
export function brokerName(rng: Rng, cls: BrokerageClass, city: number): OrgName {
  const tail = BROKER_TAIL.pick(rng);
  const r = rng.next();
  if (cls === 'national player') {
    const a = surname(rng);
    let name: string;
    if (r < 0.35) name = `${a} ${surname(rng)}${rng.pick([' & Co.', ' Agency', ' Insurance Services', ' Companies', ''])}`;
    else if (r < 0.55) name = `${a} & ${surname(rng)}`;
    else if (r < 0.8) name = `${brandWord(rng)}${rng.pick([' Insurance Services', ' Risk Partners', ' Benefits', ' Insurance Brokers', ' Group'])}`;
    else name = `${a} International`;
    return { name, base: name };
  }
  let base: string;
  if (r < 0.38) base = `${surname(rng)}${tail}`;
  else if (r < 0.52) base = `${surname(rng)} & ${surname(rng)}${rng.pick([' Benefits', ' Insurance', ' Insurance Agency', ''])}`;
  else if (r < 0.66) base = `${cls === 'local broker' && rng.chance(0.6) ? cityName(city) : rng.pick(PLACE_WORDS)}${tail}`;
  else if (r < 0.78) base = `${brandWord(rng)}${tail}`;
  else if (r < 0.85) base = `${initials(rng)}${tail}`;
  else if (r < 0.92 && cls === 'local broker') base = `${rng.pick(FIRST_NAMES)} ${surname(rng)} Insurance Agency`;
  else if (r < 0.96) base = `${US_STATES[cityState(city)]}${tail}`;
  else base = `${surname(rng)}-${surname(rng)}${tail}`;
  return { name: base + BROKER_SUFFIX.pick(rng), base };
}

const withoutThe = (base: string): string => (base.startsWith('The ') ? base.slice(4) : base);

/** A domain stem from a base name: "Acme Health" -> "acmehealth"; long names shortened. */
export function domainStem(base: string): string {
  const b = withoutThe(base);
  const stem = asciiLower(b);
  if (stem.length <= 24) return stem || 'company';
  // Long names: initials of the leading words plus the last word ("rmhealthcare").
  const parts = b.split(/[\s&,-]+/).filter(Boolean);
  const last = asciiLower(parts[parts.length - 1]);
  return (parts.slice(0, -1).map((p) => asciiLower(p).charAt(0)).join('') + last).slice(0, 30) || 'company';
}

const TLDS = new Weighted<string>([['.com', 82], ['.net', 6], ['.co', 3], ['.us', 2], ['.biz', 1], ['.org', 2]]);
const ORG_TLDS = new Weighted<string>([['.org', 70], ['.com', 25], ['.net', 5]]);
const NONPROFIT = /^(813|6241|6242|6243|622|611|712)/;

/** A domain for a base name (".org" mostly for non-profits). */
export function domainOf(rng: Rng, base: string, code = ''): string {
  return domainStem(base) + (NONPROFIT.test(code) ? ORG_TLDS : TLDS).pick(rng);
}

/** A LinkedIn company page slug from a base name. */
export function linkedinSlug(base: string): string {
  return slug(withoutThe(base)) || 'company';
}

