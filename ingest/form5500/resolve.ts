/**
 * Small resolution rules, pure: city and ZIP keys, and stable ids derived from the keys that
 * broker-resolution.ts gives firms and offices (never from row order). The person-name rules for
 * signers live in people.ts and are re-exported here. Worked examples are in docs/data.md
 * (Form 5500) and in test/ingest/form5500-resolve.test.ts.
 */
import { createHash } from 'node:crypto';
import { foldText } from '../../mappings/normalize.ts';

const CITY_WORDS: Readonly<Record<string, string>> = { saint: 'st', fort: 'ft', mount: 'mt', north: 'n', south: 's', east: 'e', west: 'w' };

const words = (s: string, table: Readonly<Record<string, string>>) => foldText(s).split(' ').filter(Boolean).map((w) => table[w] ?? w).join(' ');

export const cityKey = (city: string) => words(city, CITY_WORDS);
/** The 5-digit ZIP of a ZIP or ZIP+4 ("02110-1234", "021101234" → "02110"). */
export const zip5 = (zip: string) => zip.replace(/\D/g, '').slice(0, 5);

/** A UUID-shaped id from a kind and a normalized key: the same key gives the same id in every import. */
export function stableId(kind: string, key: string): string {
  const h = createHash('sha1').update(`form5500\u0000${kind}\u0000${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export { splitPersonName, type PersonName } from './people.ts';
