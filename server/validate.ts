/**
 * Request-body validation with ajv: schemas compiled once; ajv errors translated into
 * the API's details ({field, issue, expected}).
 */
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import type { Context } from 'koa';
import { invalid, type ErrorDetail } from './errors.ts';

const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });

const ISSUE: Record<string, (e: ErrorObject) => Pick<ErrorDetail, 'issue' | 'expected'>> = {
  additionalProperties: () => ({ issue: 'unknown_field' }),
  required: () => ({ issue: 'missing_required' }),
  type: (e) => ({ issue: 'invalid_type', expected: (e.params as { type: string }).type }),
  enum: (e) => ({ issue: 'invalid_value', expected: (e.params as { allowedValues: unknown[] }).allowedValues }),
  maxItems: (e) => ({ issue: 'too_many_items', expected: `at most ${(e.params as { limit: number }).limit}` }),
  minItems: (e) => ({ issue: 'too_few_items', expected: `at least ${(e.params as { limit: number }).limit}` }),
  minLength: (e) => ({ issue: (e.params as { limit: number }).limit === 1 ? 'empty' : 'too_short', expected: `at least ${(e.params as { limit: number }).limit} characters` }),
  maxLength: (e) => ({ issue: 'too_long', expected: `at most ${(e.params as { limit: number }).limit} characters` }),
  minimum: (e) => ({ issue: 'out_of_range', expected: `>= ${(e.params as { limit: number }).limit}` }),
  maximum: (e) => ({ issue: 'out_of_range', expected: `<= ${(e.params as { limit: number }).limit}` }),
  pattern: () => ({ issue: 'invalid_format' }),
  uniqueItems: () => ({ issue: 'duplicate_items' }),
};

/** `/entity_ids/3` → `entity_ids[3]`; the missing or unknown property is appended. */
function fieldOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.');
  const prop = (e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ?? (e.params as { additionalProperty?: string }).additionalProperty;
  return [path, prop].filter(Boolean).join('.') || 'body';
}

/** ajv errors as details; a keyword the table lacks (no schema of ours uses one) is `invalid_value`. */
export function toDetails(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors ?? []) {
    const d: ErrorDetail = { field: fieldOf(e), ...(ISSUE[e.keyword]?.(e) ?? { issue: 'invalid_value' }) };
    const k = `${d.field}|${d.issue}`;
    if (!seen.has(k)) out.push(d), seen.add(k);
  }
  return out;
}

/** A validator for a schema: returns the typed value or throws 400 VALIDATION_ERROR with every problem. */
export function validator<T>(schema: JSONSchemaType<T> | Record<string, unknown>): (body: unknown) => T {
  const fn = ajv.compile(schema as JSONSchemaType<T>) as ValidateFunction<T>;
  return (body: unknown): T => {
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw invalid({ field: 'body', issue: 'invalid_type', expected: 'a JSON object' });
    }
    if (!fn(body)) throw invalid(toDetails(fn.errors));
    return body;
  };
}

/** The parsed JSON body of a request (koa-body), or undefined. */
export function bodyOf(ctx: Context): unknown {
  return (ctx.request as unknown as { body?: unknown }).body;
}

/** How deep a request body may nest (objects and arrays); deeper is 400 `body`/`too_deep`. */
export const BODY_MAX_DEPTH = 64;

/**
 * 400 when a parsed body nests deeper than BODY_MAX_DEPTH. Walked with a stack, not recursion:
 * a body parsed fine (JSON.parse is iterative) yet nested 20,000 deep made every recursive
 * reader after it (JSON.stringify of a report payload, the canonical fingerprint) throw, a 500.
 */
export function checkBodyDepth(body: unknown): void {
  const stack: [unknown, number][] = [[body, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > BODY_MAX_DEPTH) throw invalid({ field: 'body', issue: 'too_deep', expected: `at most ${BODY_MAX_DEPTH} levels of nested objects and arrays` });
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
  }
}

/** The form of an Idempotency-Key header: 1 to 255 printable ASCII characters (the OpenAPI document shows it). */
export const IDEMPOTENCY_KEY_PATTERN = '^[!-~]{1,255}$';
const IDEMPOTENCY_KEY_RE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The request's Idempotency-Key (null when absent); 400 when it is malformed. Every endpoint that
 * accepts the header reads it here, before the body, so all answer a bad key alike.
 */
export function idempotencyKeyOf(ctx: Context): string | null {
  // Present but empty is a malformed key, not an absent one (a client that meant a key gets told).
  if (ctx.headers['idempotency-key'] === undefined) return null;
  const k = ctx.get('Idempotency-Key');
  if (!IDEMPOTENCY_KEY_RE.test(k)) throw invalid({ field: 'idempotency-key', issue: 'invalid_format', expected: '1 to 255 printable ASCII characters' });
  return k;
}
