/**
 * Opaque page cursors: where the next page starts (the sort values of the last row served),
 * for which filter combination and on which concrete index. A cursor from other filters is
 * invalid; one from an index the alias has since left is stale (counts and positions moved).
 */
import { invalid } from '../errors.ts';

export interface Cursor {
  /** Fingerprint of the filter combination (everything but page and cursor). */
  f: string;
  /** The page this cursor starts. */
  p: number;
  /** search_after values. */
  a: unknown[];
  /** The concrete index the positions belong to. */
  g: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify({ v: 1, ...c })).toString('base64url');
}

export function decodeCursor(raw: string, fingerprint: string): Cursor {
  let c: Partial<Cursor> & { v?: number };
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor> & { v?: number };
  } catch {
    throw invalid({ field: 'cursor', issue: 'invalid_cursor' }, 'cursor: not a cursor this API issued');
  }
  const valid = c && c.v === 1 && typeof c.f === 'string' && Number.isInteger(c.p) && (c.p as number) >= 0 && Array.isArray(c.a) && typeof c.g === 'string';
  if (!valid) throw invalid({ field: 'cursor', issue: 'invalid_cursor' }, 'cursor: not a cursor this API issued');
  if (c.f !== fingerprint) throw invalid({ field: 'cursor', issue: 'cursor_filter_mismatch' }, 'cursor: it belongs to other filters; send the same parameters as the call that returned it');
  return c as Cursor;
}

export const staleCursor = () => invalid({ field: 'cursor', issue: 'stale_cursor' }, 'cursor: the data was reloaded since this cursor was issued; start again from page 0');
