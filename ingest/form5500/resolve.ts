/**
 * Entity resolution rules, pure: the normalized keys that group Schedule A Part I lines into
 * broker firms and offices, and stable ids derived from those keys (never from row order). The
 * person-name rules for signers live in people.ts and are re-exported here. Worked examples are
 * in docs/data.md (Form 5500) and in test/ingest/form5500-resolve.test.ts.
 */
import { createHash } from 'node:crypto';
import { foldText, normalizeName } from '../../mappings/normalize.ts';

/** USPS street suffix and directional abbreviations (Publication 28), as folded words. */
const USPS: Readonly<Record<string, string>> = {
  street: 'st', str: 'st', avenue: 'ave', av: 'ave', boulevard: 'blvd', drive: 'dr', road: 'rd', parkway: 'pkwy', pky: 'pkwy',
  lane: 'ln', court: 'ct', place: 'pl', highway: 'hwy', square: 'sq', terrace: 'ter', circle: 'cir', center: 'ctr', centre: 'ctr',
  plaza: 'plz', trail: 'trl', way: 'way', expressway: 'expy', freeway: 'fwy', turnpike: 'tpke', building: 'bldg', floor: 'fl',
  north: 'n', south: 's', east: 'e', west: 'w', northeast: 'ne', northwest: 'nw', southeast: 'se', southwest: 'sw',
  first: '1st', second: '2nd', third: '3rd', fourth: '4th', fifth: '5th',
};
const CITY_WORDS: Readonly<Record<string, string>> = { saint: 'st', fort: 'ft', mount: 'mt', north: 'n', south: 's', east: 'e', west: 'w' };

/** Units written as SUITE 1200, STE 1200, STE. 1200, #1200, UNIT 1200, RM 1200: one form. */
const UNIT_RE = /(?:\b(?:SUITE|STE|UNIT|ROOM|RM|APT)\b\.?|#)\s*#?\s*([A-Z0-9][A-Z0-9-]*)/gi;
const PO_BOX_RE = /\bP\.?\s*O\.?\s*BOX\b|\bPOST OFFICE BOX\b/gi;

const words = (s: string, table: Readonly<Record<string, string>>) => foldText(s).split(' ').filter(Boolean).map((w) => table[w] ?? w).join(' ');

/** A broker firm's key: the name folded, '&' as "and", legal suffixes dropped ("1ST GLOBAL CAPITAL CORP" → "1st global capital"). */
export function firmKey(name: string): string {
  return normalizeName(name);
}

/** A street line's key: units as "ste N", PO boxes as "po box N", USPS abbreviations ("123 Main Street, Suite 1200" → "123 main st ste 1200"). */
export function streetKey(address1: string, address2 = ''): string {
  const raw = `${address1} ${address2}`.replace(PO_BOX_RE, ' POBOX ').replace(UNIT_RE, ' STE $1 ');
  return words(raw, USPS).replace(/\bpobox\b/g, 'po box');
}

export const cityKey = (city: string) => words(city, CITY_WORDS);
/** The 5-digit ZIP of a ZIP or ZIP+4 ("02110-1234", "021101234" → "02110"). */
export const zip5 = (zip: string) => zip.replace(/\D/g, '').slice(0, 5);

export interface AddressParts {
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
}

/**
 * An office's key: firm, street, city, state and ZIP. Null when the line has no US street
 * and city (such lines attach to the firm only).
 */
export function officeKey(firm: string, a: AddressParts): string | null {
  const street = streetKey(a.address1, a.address2);
  const city = cityKey(a.city);
  if (!street || !city) return null;
  return `${firm}|${street}|${city}|${a.state.trim().toUpperCase()}|${zip5(a.zip)}`;
}

/** A UUID-shaped id from a kind and a normalized key: the same key gives the same id in every import. */
export function stableId(kind: string, key: string): string {
  const h = createHash('sha1').update(`form5500\u0000${kind}\u0000${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export { splitPersonName, type PersonName } from './people.ts';
