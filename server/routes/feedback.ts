/**
 * Bug reports and review flags from automation (server/services/feedback.ts):
 *
 *   POST /v1/reports, GET /v1/reports, GET /v1/reports/{id}
 *   POST /v1/review-flags, GET /v1/review-flags, GET /v1/review-flags/{id}, and the same under
 *   /v1/data-flags (an alias: one store, one id space)
 *
 * 0 credits; live keys only (test keys cannot file reports, and flags are writes), with
 * a root key, or feedback:write to file and feedback:read to read (scopes a child key never holds:
 * a data-only key neither reads its user's reports nor files in their name); rate limited like every
 * authenticated call. A record is read back by its author (the key's user in its organization);
 * operators list and resolve every record with `bintel reports|flags`. A repeat with the same
 * Idempotency-Key and body answers the first record (200, idempotency_reused); the same key with
 * another body is 409. An organization holds at most BINTEL_FEEDBACK_MAX_OPEN open reports and as
 * many open flags, one user at most BINTEL_FEEDBACK_MAX_OPEN_PER_USER of each; past either a new
 * one is 429 until an operator resolves some.
 */
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { assertScope, authOf, type Access } from '../access.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import { ref } from '../openapi/schemas.ts';
import { pathParameter, type Schema } from '../openapi/params.ts';
import { BODY, array, pagedQuery } from '../openapi/shapes.ts';
import { route, type Route } from './route.ts';
import { ENTITIES, findEntity } from '../../mappings/index.ts';
import { RECORD_ID_RE } from '../../mappings/types.ts';
import { ApiError, invalid, notFound, quotaExceeded, type ErrorDetail } from '../errors.ts';
import { indexFor } from '../read/fetch.ts';
import { choiceParam, listMeta, pageParams, throwProblems } from '../read/request.ts';
import { FEEDBACK_STATUSES, feedbackIdPattern, feedbackIdRe, type FeedbackKind, type FeedbackRecord } from '../services/feedback.ts';
import { conflictingClaim } from '../services/claim.ts';
import { bodyOf, idempotencyKeyOf } from '../validate.ts';

/** Paths of review flags: the name and its alias. */
export const FLAG_PATHS = ['/v1/review-flags', '/v1/data-flags'] as const;
/** Longest message of a report and issue of a flag, in characters. */
export const FEEDBACK_TEXT_MAX = 4000;
/** Longest suggested value of a flag (as JSON), in characters. */
export const SUGGESTED_VALUE_MAX = 2000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A required (or optional) string member of 1..max characters after trimming. */
function text(body: Record<string, unknown>, field: string, max: number, problems: ErrorDetail[], required = true): string | undefined {
  const v = body[field];
  // null is no string: an optional member is left out, never sent as null (the document types it a string).
  if (v === undefined || (v === null && required)) {
    if (required) problems.push({ field, issue: 'missing_required', expected: `a string of 1 to ${max} characters` });
    return undefined;
  }
  if (typeof v !== 'string') problems.push({ field, issue: 'invalid_type', expected: 'a string' });
  else if (!v.trim()) problems.push({ field, issue: 'empty', expected: `a string of 1 to ${max} characters` });
  else if (v.length > max) problems.push({ field, issue: 'too_long', expected: `at most ${max} characters` });
  else return v.trim();
  return undefined;
}

function unknownFields(body: Record<string, unknown>, allowed: readonly string[], problems: ErrorDetail[]): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) problems.push({ field: k, issue: 'unknown_field', expected: allowed });
}

/** A member given under its name or its alias (both given must agree). */
function aliased(body: Record<string, unknown>, name: string, alias: string, problems: ErrorDetail[]): Record<string, unknown> {
  if (body[alias] === undefined) return body;
  if (body[name] !== undefined && body[name] !== body[alias]) {
    problems.push({ field: alias, issue: 'conflicting_values', expected: `the same value as ${name} (an alias)` });
    return body;
  }
  const { [alias]: v, ...rest } = body;
  return { ...rest, [name]: v };
}

export const REPORT_FIELDS = ['endpoint', 'request_id', 'message', 'payload'] as const;
export const FLAG_FIELDS = ['entity_type', 'entity_id', 'field', 'field_key', 'issue', 'reason', 'suggested_value'] as const;

/** The fields of a report, checked: endpoint, message, optional request_id and payload (at most reportMaxBytes as JSON). */
function parseReport(services: Services, raw: unknown): Record<string, unknown> {
  if (!isObject(raw)) throw invalid({ field: 'body', issue: 'invalid_type', expected: 'a JSON object' });
  const problems: ErrorDetail[] = [];
  unknownFields(raw, REPORT_FIELDS, problems);
  const endpoint = text(raw, 'endpoint', 300, problems);
  const message = text(raw, 'message', FEEDBACK_TEXT_MAX, problems);
  const requestId = text(raw, 'request_id', 128, problems, false);
  throwProblems(problems);
  const max = services.config.reportMaxBytes;
  if (raw.payload !== undefined && Buffer.byteLength(JSON.stringify(raw.payload)) > max) {
    throw new ApiError('PAYLOAD_TOO_LARGE', `payload: at most ${max} bytes of JSON`, [{ field: 'payload', issue: 'too_large', expected: `at most ${max} bytes of JSON` }]);
  }
  return { endpoint, request_id: requestId ?? null, message, payload: raw.payload ?? null };
}

/** The fields of a flag, checked, with the entity's existence in the caller's data. */
async function parseFlag(services: Services, ctx: Context, raw: unknown): Promise<Record<string, unknown>> {
  if (!isObject(raw)) throw invalid({ field: 'body', issue: 'invalid_type', expected: 'a JSON object' });
  const problems: ErrorDetail[] = [];
  unknownFields(raw, FLAG_FIELDS, problems);
  const body = aliased(aliased(raw, 'field', 'field_key', problems), 'issue', 'reason', problems);
  const def = typeof body.entity_type === 'string' ? findEntity(body.entity_type) : undefined;
  if (!def) problems.push({ field: 'entity_type', issue: body.entity_type === undefined ? 'missing_required' : 'invalid_value', expected: ENTITIES.map((d) => d.name) });
  const entityId = body.entity_id;
  if (entityId === undefined) problems.push({ field: 'entity_id', issue: 'missing_required', expected: 'a record id' });
  else if (typeof entityId !== 'string' || !RECORD_ID_RE.test(entityId)) problems.push({ field: 'entity_id', issue: 'invalid_format', expected: 'a record id' });
  const field = text(body, 'field', 100, problems);
  const issue = text(body, 'issue', FEEDBACK_TEXT_MAX, problems);
  const outputs = def ? def.fields.filter((f) => f.output !== false).map((f) => f.name) : [];
  if (def && field !== undefined && !outputs.includes(field)) problems.push({ field: raw.field_key !== undefined && raw.field === undefined ? 'field_key' : 'field', issue: 'invalid_value', expected: outputs });
  const suggested = body.suggested_value;
  if (suggested !== undefined && suggested !== null && JSON.stringify(suggested).length > SUGGESTED_VALUE_MAX) problems.push({ field: 'suggested_value', issue: 'too_long', expected: `at most ${SUGGESTED_VALUE_MAX} characters as JSON` });
  throwProblems(problems);
  const entity = def as NonNullable<typeof def>;
  assertScope(authOf(ctx).key, `read:${entity.name}`);
  // The entity must exist in the caller's data (never disclosing anything of other data).
  const found = await services.es.exists({ index: indexFor(authOf(ctx), entity), id: entityId as string });
  if (!found) throw invalid({ field: 'entity_id', issue: 'invalid_reference', expected: `a ${entity.label} id in this key's data` });
  return { entity_type: entity.name, entity_id: entityId, field, issue, suggested_value: suggested ?? null };
}

/** What the caller sees of a record: all of it but the organization (it is theirs). */
const view = ({ org: _org, ...rest }: FeedbackRecord) => rest;

/**
 * Who may file and read: a live key (test keys cannot file reports, and flags are writes); a root
 * API key whatever its scopes (keys issued before feedback:* existed keep working); a child key or
 * a token with the scope, which child keys are never given.
 */
const access = (kind: FeedbackKind, scope: 'feedback:read' | 'feedback:write'): Access => ({ kind: 'scope', scope, root: true, live: kind === 'report' ? 'bug reports' : 'review flags' });

type Parse = (services: Services, ctx: Context, body: unknown) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** What the routes of one kind at one path share with the document. */
interface KindDoc {
  summary: { file: string; list: string; one: string };
  body: { schema: Schema; example: unknown };
  record: Schema;
  id: string;
}

/** POST, GET and GET by id of one kind at one path. */
function feedbackRoutesOf(kind: FeedbackKind, path: string, parse: Parse, doc: KindDoc): Route[] {
  const idRe = feedbackIdRe(kind);
  const idem = 'Idempotency-Key: a repeat with the same body answers the first record (200, meta.idempotency_reused); with another body 409.';
  const capped = `An organization holds at most BINTEL_FEEDBACK_MAX_OPEN (default 1,000) open records of each kind, one user BINTEL_FEEDBACK_MAX_OPEN_PER_USER (default ${CONFIG_DEFAULTS.records.feedbackMaxOpenPerUser}): 429 QUOTA_EXCEEDED beyond, until an operator resolves some.`;
  const listing = pagedQuery('Records', { properties: { status: { type: 'string', enum: [...FEEDBACK_STATUSES] } }, about: { status: 'Only records in this state.' } });
  const reads = access(kind, 'feedback:read');
  return [
    route({
      method: 'post', path, tag: 'feedback', summary: doc.summary.file, description: `Live root keys, or keys and tokens holding feedback:write (test keys 403; child keys never hold it). ${idem} ${capped}`, access: access(kind, 'feedback:write'), idempotencyKey: true,
      body: doc.body, success: { data: doc.record, created: true }, errors: [...BODY, 409],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        const idemKey = idempotencyKeyOf(ctx);
        const fields = await parse(services, ctx, bodyOf(ctx));
        const filed = await services.feedback.file(kind, { org: key.org, user: key.user, keyId: key.id }, fields, idemKey);
        if ('capped' in filed) {
          const name = kind === 'report' ? 'reports' : 'review flags';
          if (filed.per === 'user') throw quotaExceeded(kind === 'report' ? 'reports' : 'review-flags', `open ${name}`, filed.capped, filed.open, 'user', 'more can be filed once an operator resolves some');
          throw new ApiError('QUOTA_EXCEEDED', `The organization has ${filed.capped} open ${name}; more can be filed once an operator resolves some`, [
            { field: kind === 'report' ? 'reports' : 'review-flags', issue: 'quota_exceeded', expected: `at most ${filed.capped} open ${name} per organization` },
          ]);
        }
        if ('conflict' in filed) throw conflictingClaim();
        ok(ctx, view(filed.record), filed.reused ? { idempotency_reused: true } : {}, filed.reused ? 200 : 201);
        if (!filed.reused) ctx.set('Location', `${path}/${filed.record.id}`);
      },
    }),
    route({
      method: 'get', path, tag: 'feedback', summary: doc.summary.list, access: reads, query: listing, success: { data: array(doc.record), meta: ref('ListMeta') }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        const q = query();
        const problems: ErrorDetail[] = [];
        const { page, pageSize } = pageParams(q, problems);
        const status = q.status === undefined ? undefined : choiceParam(q, 'status', { allowed: FEEDBACK_STATUSES, fallback: 'open' }, problems);
        throwProblems(problems);
        const { records, total } = await services.feedback.listByUser(kind, key.org, key.user, page, pageSize, status);
        ok(ctx, records.map(view), listMeta(page, pageSize, records.length, total));
      },
    }),
    route({
      method: 'get', path: `${path}/{id}`, tag: 'feedback', summary: doc.summary.one, access: reads,
      params: [pathParameter('id', doc.id, { type: 'string', pattern: feedbackIdPattern(kind) })], success: { data: doc.record }, errors: [404],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        query();
        const id = ctx.params.id;
        const rec = idRe.test(id) ? await services.feedback.get(kind, key.org, id) : null;
        // Another user's or organization's record does not exist for the caller.
        if (!rec || rec.filed_by.user !== key.user) throw notFound(kind === 'report' ? 'report' : 'flag', 'id');
        ok(ctx, view(rec));
      },
    }),
  ];
}

/** Bug reports, then review flags under each of their paths: 0 credits. */
export function feedbackRoutes(): Route[] {
  const common: Record<string, Schema> = {
    status: { type: 'string', enum: [...FEEDBACK_STATUSES] },
    filed_by: { type: 'object', properties: { key_id: { type: 'string' }, user: { type: 'string' } } },
    created_at: { type: 'string', format: 'date-time' },
    resolved_at: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    resolved_by: { oneOf: [{ type: 'string' }, { type: 'null' }] },
    resolution_note: { oneOf: [{ type: 'string' }, { type: 'null' }] },
  };
  const text = (max: number): Schema => ({ type: 'string', minLength: 1, maxLength: max });
  const reportBody: Schema = { type: 'object', additionalProperties: false, required: ['endpoint', 'message'], properties: { endpoint: { ...text(300), description: 'The call concerned, e.g. "GET /v1/companies".' }, request_id: { ...text(128), description: 'Its X-Request-Id.' }, message: text(FEEDBACK_TEXT_MAX), payload: { description: `Any JSON, at most BINTEL_REPORT_MAX_BYTES (default ${CONFIG_DEFAULTS.reportMaxBytes.toLocaleString('en-US')}) bytes: 413 above.` } } };
  const flagBody: Schema = {
    type: 'object',
    additionalProperties: false,
    required: ['entity_type', 'entity_id'],
    properties: {
      entity_type: { type: 'string', enum: [...ENTITY_NAMES] },
      entity_id: { type: 'string', description: "A row in the key's data (400 invalid_reference otherwise); the key needs read:<entity_type>." },
      field: { type: 'string', description: 'A field of the entity (one of its output fields); alias field_key. One of the two is required.' },
      field_key: { type: 'string', description: 'Alias of field.' },
      issue: { ...text(FEEDBACK_TEXT_MAX), description: 'What is wrong; alias reason. One of the two is required.' },
      reason: { ...text(FEEDBACK_TEXT_MAX), description: 'Alias of issue.' },
      suggested_value: { description: `The right value, any JSON up to ${SUGGESTED_VALUE_MAX} characters.` },
    },
  };
  const report: Schema = { type: 'object', properties: { id: { type: 'string', pattern: feedbackIdPattern('report') }, endpoint: { type: 'string' }, request_id: { oneOf: [{ type: 'string' }, { type: 'null' }] }, message: { type: 'string' }, payload: {}, ...common } };
  const flag: Schema = { type: 'object', properties: { id: { type: 'string', pattern: feedbackIdPattern('flag') }, entity_type: { type: 'string' }, entity_id: { type: 'string' }, field: { type: 'string' }, issue: { type: 'string' }, suggested_value: {}, ...common } };
  const routes = feedbackRoutesOf('report', '/v1/reports', (services, _ctx, body) => parseReport(services, body), {
    summary: { file: 'File a bug report (201)', list: 'The reports the caller filed, newest first', one: 'One report the caller filed, with its status' },
    body: { schema: reportBody, example: { endpoint: 'GET /v1/companies', request_id: 'req_01HZX', message: 'Page 3 repeats a row of page 2', payload: { query: 'states=TX&page=3' } } },
    record: report, id: 'The report id (rpt_…).',
  });
  for (const path of FLAG_PATHS) {
    const alias = path === '/v1/data-flags' ? ' (alias of /v1/review-flags)' : '';
    routes.push(...feedbackRoutesOf('flag', path, (services, ctx, body) => parseFlag(services, ctx, body), {
      summary: { file: `Flag a field value of a row for review (201)${alias}`, list: `The flags the caller filed, newest first${alias}`, one: `One flag the caller filed, with its status${alias}` },
      body: { schema: flagBody, example: { entity_type: 'companies', entity_id: 'cmp_0001', field: 'website', issue: 'The site moved', suggested_value: 'https://northwind.example' } },
      record: flag, id: 'The flag id (flg_…).',
    }));
  }
  return routes;
}
