/**
 * Organisation names (plan sponsors and brokerages) and what derives from a name: the
 * domain, the LinkedIn slug.
 */
import { US_STATES, type BROKERAGE_CLASSES } from '../../mappings/reference.ts';
import { asciiLower, slug } from './format.ts';
import { cityName, cityState } from './geo.ts';
import { FIRST_NAMES, LAST_NAMES } from './names.ts';
import { type Rng, Weighted } from './prng.ts';
import {
  BRAND_WORDS, CITY_WORDS, GENERIC_WORDS, PLACE_WORDS, STATE_WORDS, industryWords, initials, legalSuffix,
} from './words.ts';

export type BrokerageClass = (typeof BROKERAGE_CLASSES)[number];

const PRACTICE = /^(5411|5412|6211|6212)/;
const STANDALONE_BRAND = /^(72|44|45|81|71)/;

/** A plan sponsor's name, fitting its industry (NAICS code) and city. */
export function companyName(rng: Rng, code: string, city: number): string {
  const w = rng.pick(industryWords(code));
  const sfx = legalSuffix(rng, code);
  const r = rng.next();
  if (r < 0.28) return `${rng.pick(LAST_NAMES)} ${w}${sfx}`;
  if (r < 0.38) return `${rng.chance(0.5) ? cityName(city) : rng.pick(PLACE_WORDS)} ${w}${sfx}`;
  if (r < 0.48) {
    const a = rng.pick(LAST_NAMES);
    const b = rng.pick(LAST_NAMES);
    if (PRACTICE.test(code)) {
      return rng.chance(0.4) ? `${a}, ${b} & ${rng.pick(LAST_NAMES)}${sfx}` : `${a} & ${b}${sfx}`;
    }
    return `${a} & ${b} ${w}${sfx}`;
  }
  if (r < 0.55) {
    const s = rng.pick(LAST_NAMES);
    const kind = rng.int(0, 3);
    if (kind === 0) return `${s} & Sons${rng.chance(0.6) ? ', Inc.' : ''}`;
    if (kind === 1) return `${s} & Sons ${w}${sfx}`;
    if (kind === 2) return `${s} Brothers ${w}${sfx}`;
    return `${s} Family ${w}${sfx}`;
  }
  if (r < 0.69) return `${rng.pick(BRAND_WORDS)} ${w}${sfx}`;
  if (r < 0.74) return `${initials(rng)} ${w}${sfx}`;
  if (r < 0.81) return `${rng.pick(BRAND_WORDS)} ${rng.pick(GENERIC_WORDS)}${sfx}`;
  if (r < 0.87) return `${rng.pick(LAST_NAMES)} ${rng.pick(GENERIC_WORDS)}${sfx}`;
  if (r < 0.91) return `The ${rng.pick(LAST_NAMES)} ${rng.pick(['Group', 'Company', 'Companies', 'Organization', 'Agency'])}`;
  if (r < 0.95) return `${rng.chance(0.5) ? US_STATES[cityState(city)] : rng.pick(STATE_WORDS)} ${w}${sfx}`;
  if (r < 0.97 && STANDALONE_BRAND.test(code)) return `${rng.pick(BRAND_WORDS)}${rng.chance(0.5) ? ' LLC' : ''}`;
  if (r < 0.985) return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)} ${w}${sfx}`;
  return `${rng.pick(CITY_WORDS)} ${rng.pick(BRAND_WORDS)} ${w}${sfx}`;
}

const BROKER_TAIL = new Weighted<string>([
  [' Insurance Group', 10], [' Insurance Agency', 8], [' Benefits', 6], [' Benefits Group', 6], [' Benefit Advisors', 6],
  [' Insurance Services', 6], [' Financial Group', 4], [' Risk & Benefits', 3], [' Employee Benefits', 5],
  [' Benefits Consulting', 4], [' Insurance & Benefits', 3], [' & Associates', 3], [' Risk Partners', 3], [' Agency', 2],
]);
const BROKER_SUFFIX = new Weighted<string>([['', 10], [', Inc.', 4], [' Inc.', 3], [' LLC', 6], [', LLC', 1]]);

/** A brokerage's name: national players sound like national firms, locals like agencies. */
export function brokerName(rng: Rng, cls: BrokerageClass, city: number): string {
  const tail = BROKER_TAIL.pick(rng);
  const r = rng.next();
  if (cls === 'national player') {
    const a = rng.pick(LAST_NAMES);
    if (r < 0.35) return `${a} ${rng.pick(LAST_NAMES)}${rng.pick([' & Co.', ' Agency', ' Insurance Services', ' Companies', ''])}`;
    if (r < 0.55) return `${a} & ${rng.pick(LAST_NAMES)}`;
    if (r < 0.8) return `${rng.pick(BRAND_WORDS)}${rng.pick([' Insurance Services', ' Risk Partners', ' Benefits', ' Insurance Brokers', ' Group'])}`;
    return `${a} International`;
  }
  let base: string;
  if (r < 0.38) base = `${rng.pick(LAST_NAMES)}${tail}`;
  else if (r < 0.52) base = `${rng.pick(LAST_NAMES)} & ${rng.pick(LAST_NAMES)}${rng.pick([' Benefits', ' Insurance', ' Insurance Agency', ''])}`;
  else if (r < 0.66) base = `${cls === 'local broker' && rng.chance(0.6) ? cityName(city) : rng.pick(PLACE_WORDS)}${tail}`;
  else if (r < 0.78) base = `${rng.pick(BRAND_WORDS)}${tail}`;
  else if (r < 0.85) base = `${initials(rng)}${tail}`;
  else if (r < 0.92 && cls === 'local broker') base = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)} Insurance Agency`;
  else if (r < 0.96) base = `${US_STATES[cityState(city)]}${tail}`;
  else base = `${rng.pick(LAST_NAMES)}-${rng.pick(LAST_NAMES)}${tail}`;
  return base + BROKER_SUFFIX.pick(rng);
}

const LEGAL_TAIL =
  /(,?\s+(Inc\.|Incorporated|LLC|L\.L\.C\.|Corporation|Corp\.|Co\.|Company|Ltd\.|LP|LLP|PLLC|P\.C\.|P\.A\.))+$/;

/** The name without its legal suffix and leading "The". */
export function baseName(name: string): string {
  return name.replace(LEGAL_TAIL, '').replace(/^The /, '');
}

/** A domain stem from a name: "Acme Health, Inc." -> "acmehealth"; long names shortened. */
export function domainStem(name: string): string {
  const base = baseName(name);
  const stem = asciiLower(base);
  if (stem.length <= 24) return stem || 'company';
  // Long names: initials of the leading words plus the last word ("rmhealthcare").
  const parts = base.split(/[\s&-]+/).filter(Boolean);
  const last = asciiLower(parts[parts.length - 1]);
  return (parts.slice(0, -1).map((p) => asciiLower(p).charAt(0)).join('') + last).slice(0, 30) || 'company';
}

const TLDS = new Weighted<string>([['.com', 82], ['.net', 6], ['.co', 3], ['.us', 2], ['.biz', 1], ['.org', 2]]);
const ORG_TLDS = new Weighted<string>([['.org', 70], ['.com', 25], ['.net', 5]]);
const NONPROFIT = /^(813|6241|6242|6243|622|611|712)/;

/** A domain for a name (".org" mostly for non-profits). */
export function domainOf(rng: Rng, name: string, code = ''): string {
  return domainStem(name) + (NONPROFIT.test(code) ? ORG_TLDS : TLDS).pick(rng);
}

/** A LinkedIn company page slug. */
export function linkedinSlug(name: string): string {
  return slug(baseName(name)) || 'company';
}

