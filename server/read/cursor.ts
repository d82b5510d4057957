/**
 * Opaque page cursors: where the next page starts (the sort values of the last row served), for
 * which filter combination and on which concrete index. Cursors are signed (HMAC-SHA256 with a
 * secret every server of the namespace shares through Redis: services/read-memory.ts), so a caller
 * cannot forge the position or the page number (which would send unchecked sort values to
 * Elasticsearch, or walk pages past crawl detection). A cursor from other filters is invalid; one
 * from an index the alias has since left is stale (counts and positions moved).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
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

const notOurs = () => invalid({ field: 'cursor', issue: 'invalid_cursor' }, 'cursor: not a cursor this API issued');

export class CursorCodec {
  private secret: Promise<Buffer> | null = null;

  /** `loadSecret`: the namespace's signing secret, hex (services/read-memory.ts `cursorSecret`). */
  constructor(private readonly loadSecret: () => Promise<string>) {}

  /** The signing secret: loaded once per process (again after a failed load). */
  private key(): Promise<Buffer> {
    this.secret ??= this.loadSecret()
      .then((hex) => Buffer.from(hex, 'hex'))
      .catch((err: unknown) => {
        this.secret = null;
        throw err;
      });
    return this.secret;
  }

  async encode(c: Cursor): Promise<string> {
    const body = Buffer.from(JSON.stringify({ v: 1, ...c })).toString('base64url');
    return `${body}.${createHmac('sha256', await this.key()).update(body).digest('base64url')}`;
  }

  /** The cursor, or 400 invalid_cursor (not signed by us, malformed) / cursor_filter_mismatch. */
  async decode(raw: string, fingerprint: string, sortLength: number): Promise<Cursor> {
    const dot = raw.indexOf('.');
    if (dot < 1) throw notOurs();
    const body = raw.slice(0, dot);
    const given = Buffer.from(raw.slice(dot + 1), 'base64url');
    const expected = createHmac('sha256', await this.key()).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw notOurs();
    let c: Partial<Cursor> & { v?: number };
    try {
      c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<Cursor> & { v?: number };
    } catch {
      throw notOurs();
    }
    const sortValues = Array.isArray(c.a) && c.a.length === sortLength && c.a.every((x) => x === null || typeof x === 'number' || typeof x === 'string');
    const valid = c && c.v === 1 && typeof c.f === 'string' && Number.isInteger(c.p) && (c.p as number) >= 0 && sortValues && typeof c.g === 'string';
    if (!valid) throw notOurs();
    if (c.f !== fingerprint) throw invalid({ field: 'cursor', issue: 'cursor_filter_mismatch' }, 'cursor: it belongs to other filters; send the same parameters as the call that returned it');
    return c as Cursor;
  }
}

export const staleCursor = () => invalid({ field: 'cursor', issue: 'stale_cursor' }, 'cursor: the data was reloaded since this cursor was issued; start again from page 0');
