/**
 * Value encoding of generated CSV cells: numbers, dates, keyword lists and slugs.
 * Blank is the empty string.
 */
import { utcDay } from '../../core/clock.ts';

/** A row: CSV column name to encoded cell. */
export type Row = Record<string, string>;

/** An integer cell (integer and long fields). */
export function int(n: number): string {
  return String(Math.round(n));
}

/** A double cell with at most 2 decimals (never "-0"). */
export function dec2(n: number): string {
  const r = Math.round(n * 100) / 100;
  return String(r === 0 ? 0 : r);
}

/** A keywords cell: values joined with ';'. */
export function keywords(values: readonly string[]): string {
  return values.join(';');
}

const MS_PER_DAY = 86_400_000;

/** Whole days since the epoch of a UTC date. */
export function epochDay(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / MS_PER_DAY;
}

/** ISO-8601 UTC midnight of an epoch day: `2025-03-14T00:00:00Z`. */
export function isoDay(day: number): string {
  return `${utcDay(day * MS_PER_DAY)}T00:00:00Z`;
}

/** ISO dates of the `span` days before a reference day, cached (index 0 = the reference day). */
export class RecentDays {
  private readonly days: string[];
  constructor(refDay: number, span: number) {
    this.days = Array.from({ length: span }, (_, i) => isoDay(refDay - i));
  }
  get span(): number {
    return this.days.length;
  }
  ago(daysAgo: number): string {
    return this.days[daysAgo];
  }
}

const NON_ASCII = /[^\x00-\x7f]/;
const UNDECOMPOSABLE = /[øØæÆœŒßłŁđĐı]/g;
const SPECIAL: Record<string, string> = { ø: 'o', Ø: 'o', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe', ß: 'ss', ł: 'l', Ł: 'l', đ: 'd', Đ: 'd', ı: 'i' };

/** Lowercase with accents folded to ASCII ("Ñúñez" -> "nunez", "Søren" -> "soren"). */
function foldLower(s: string): string {
  if (!NON_ASCII.test(s)) return s.toLowerCase();
  return s
    .replace(UNDECOMPOSABLE, (c) => SPECIAL[c])
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Lowercase ASCII letters and digits of a name: accents folded, '&' as "and", everything else dropped. */
export function asciiLower(s: string): string {
  return foldLower(s).replace(/&/g, 'and').replace(/[^a-z0-9]+/g, '');
}

/** A URL slug: folded words joined by '-'. */
export function slug(s: string): string {
  return foldLower(s)
    .replace(/&/g, ' and ')
    .replace(/['’.]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
