/**
 * Row validation, derived from the entity definition: every CSV field is coerced to its
 * type and checked against its enum, format and bounds. Values may be CSV strings or,
 * when rebuilding from a live index, already typed JSON values: both pass the same checks.
 */
import { STATE_CODES } from '../mappings/reference.ts';
import { normalizeEin } from '../mappings/normalize.ts';
import { RECORD_ID_RE, type FieldDef, type StringFormat } from '../mappings/types.ts';

/** A problem with one field of one row. */
export interface FieldIssue {
  field: string;
  issue: string;
  /** What was expected, for the error report. */
  expected?: string;
}

type Coerced = { ok: true; value: unknown } | { ok: false; issue: string; expected?: string };

const STATES = new Set(STATE_CODES);
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL_RE = /^https?:\/\/[^\s/$.?#][^\s]*$/i;
const DOMAIN_RE = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i;
const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const INTEGER_RE = /^[+-]?\d+$/;
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', '1', 'yes', 'y', 't']);
const FALSE = new Set(['false', '0', 'no', 'n', 'f']);
const MAX_STRING = 2048;

const ok = (value: unknown): Coerced => ({ ok: true, value });
const bad = (issue: string, expected?: string): Coerced => ({ ok: false, issue, expected });

/** Format checks: each returns the normalized string, or null when invalid. */
const FORMATS: Record<StringFormat, [check: (s: string) => string | null, expected: string]> = {
  usps_state: [(s) => (STATES.has(s.toUpperCase()) ? s.toUpperCase() : null), 'a two-letter USPS code'],
  ein: [(s) => normalizeEin(s) || null, '9 digits, optionally as NN-NNNNNNN'],
  email: [(s) => (EMAIL_RE.test(s) ? s : null), 'an email address'],
  url: [(s) => (URL_RE.test(s) ? s : DOMAIN_RE.test(s) ? s : null), 'an http(s) URL or a domain'],
  domain: [(s) => (DOMAIN_RE.test(s) ? s.toLowerCase() : null), 'a domain'],
  uuid_or_slug: [(s) => (RECORD_ID_RE.test(s) ? s : null), 'letters, digits, _ . : -'],
  iso_date: [(s) => (ISO_DATE_RE.test(s) && !Number.isNaN(Date.parse(s)) ? s : null), 'an ISO-8601 date'],
};

function checkString(f: FieldDef, s: string): Coerced {
  if (s.length > MAX_STRING) return bad('too_long', `at most ${MAX_STRING} characters`);
  if (s.includes('\uFFFD')) return bad('invalid_utf8', 'valid UTF-8 text');
  if (f.enum && !f.enum.includes(s)) return bad('invalid_value', `one of: ${f.enum.join(', ')}`);
  if (f.format) {
    const [check, expected] = FORMATS[f.format];
    const v = check(s);
    if (v === null) return bad(`invalid_${f.format === 'usps_state' ? 'state' : f.format}`, expected);
    return ok(v);
  }
  return ok(s);
}

function checkBounds(f: FieldDef, n: number): Coerced {
  if (f.min !== undefined && n < f.min) return bad('out_of_range', `>= ${f.min}`);
  if (f.max !== undefined && n > f.max) return bad('out_of_range', `<= ${f.max}`);
  return ok(n);
}

function toNumber(f: FieldDef, v: unknown, integer: boolean): Coerced {
  const s = typeof v === 'number' ? String(v) : String(v).trim().replace(/,/g, '');
  if (integer ? !INTEGER_RE.test(s) : !NUMBER_RE.test(s)) {
    return bad(integer ? 'invalid_integer' : 'invalid_number', integer ? 'a whole number' : 'a number');
  }
  const n = Number(s);
  if (!Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) return bad('out_of_range', 'a finite number');
  return checkBounds(f, n);
}

/** Coercion by type: a dispatch table, one entry per storage type. */
const COERCE: Record<FieldDef['type'], (f: FieldDef, v: unknown) => Coerced> = {
  keyword: (f, v) => checkString(f, String(v).trim()),
  name: (f, v) => checkString(f, String(v).trim()),
  text: (f, v) => checkString(f, String(v).trim()),
  integer: (f, v) => toNumber(f, v, true),
  long: (f, v) => toNumber(f, v, true),
  double: (f, v) => toNumber(f, v, false),
  boolean: (_f, v) => {
    if (typeof v === 'boolean') return ok(v);
    const s = String(v).trim().toLowerCase();
    return TRUE.has(s) ? ok(true) : FALSE.has(s) ? ok(false) : bad('invalid_boolean', 'true or false');
  },
  date: (f, v) => checkString({ ...f, format: 'iso_date' }, String(v).trim()),
  keywords: (f, v) => {
    const parts = Array.isArray(v) ? v.map(String) : String(v).split(';');
    const out: string[] = [];
    for (const p of parts) {
      const t = p.trim();
      if (!t) continue;
      const c = checkString(f, t);
      if (!c.ok) return c;
      if (!out.includes(c.value as string)) out.push(c.value as string);
    }
    return ok(out.length ? out : null);
  },
};

/** True for a value that counts as blank (absent, null, empty or whitespace-only string, empty array). */
export function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/**
 * Coerces one raw value for a field. Blank values become null (an issue when required).
 * Returns the typed value or the issue.
 */
export function coerceField(f: FieldDef, raw: unknown): Coerced {
  if (isBlank(raw)) {
    return f.source.kind === 'csv' && f.source.required ? bad('missing_required', 'a value') : ok(null);
  }
  return COERCE[f.type](f, raw);
}

/** A validated id (CSV `id` column), or null when the value is not a usable id. */
export function checkId(raw: string): string | null {
  return RECORD_ID_RE.test(raw) ? raw : null;
}
