/**
 * Component schemas of the OpenAPI document: the success envelope, the error envelope and one
 * error response per status (codes from CATALOGUE, issue words from ISSUE_CODES), one row
 * schema per entity from its field definitions, and the account, key and tag records.
 */
import { ERROR_DETAIL_EXAMPLES } from './examples.ts';
import { ENTITIES } from '../../mappings/index.ts';
import type { EntityDef, FieldDef } from '../../mappings/types.ts';
import { CATALOGUE, ISSUE_CODES, type ErrorCode } from '../errors.ts';
import { ALL_SCOPES } from '../scopes.ts';
import { KEY_STATES, KEY_TYPES } from '../services/keys.ts';
import { CRMS } from '../services/crm.ts';
import type { Schema } from './params.ts';

/** `#/components/schemas/<name>`. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** Component name of an entity's row schema: `CompaniesRow`, `BrokerOfficesRow`. */
export const rowName = (def: EntityDef): string => `${def.name.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Row`;

const TYPE: Record<FieldDef['type'], Schema> = {
  keyword: { type: 'string' },
  name: { type: 'string' },
  text: { type: 'string' },
  keywords: { type: 'array', items: { type: 'string' } },
  integer: { type: 'integer' },
  long: { type: 'integer' },
  double: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string' },
};

/** One field as a property: its type (or null: a row may lack the value), description and tier. */
function fieldSchema(f: FieldDef): Schema {
  const base = TYPE[f.type];
  const type = [base.type as string, 'null'];
  // A keywords field's allowed values are those of its items.
  const values = !f.enum ? {} : f.type === 'keywords' ? { items: { type: 'string', enum: [...f.enum] } } : { enum: [...f.enum, null] };
  return { ...base, type, description: f.description, ...values, 'x-tier': f.tier ?? 'basic' };
}

/** The row of an entity: every output field; which ones a row carries depends on mode, fields and the key's tier. */
function rowSchema(def: EntityDef): Schema {
  const props: Record<string, Schema> = Object.fromEntries(def.fields.filter((f) => f.output !== false).map((f) => [f.name, fieldSchema(f)]));
  props.lead_source = { type: ['object', 'null'], description: 'Where the row comes from.', properties: { source: { type: 'string' }, retrieved_at: { type: ['string', 'null'] } } };
  for (const m of def.callerMembers ?? []) {
    props[m] = m === 'tags' ? { type: 'array', items: { type: 'string' }, description: "The caller's tags on the row (mode=full or fields=tags)." } : { type: ['array', 'null'], items: { type: 'string', enum: [...CRMS] }, description: "The organization's CRMs that hold the row (`[]`: in neither)." };
  }
  return { type: 'object', description: `A ${def.label} row: mode, fields and the key's field tier decide which properties it carries (x-tier).`, required: ['id'], properties: props };
}

/** The error codes of one HTTP status, from the catalogue. */
export const codesOf = (status: number): ErrorCode[] => (Object.keys(CATALOGUE) as ErrorCode[]).filter((c) => CATALOGUE[c].status === status);

/** Statuses the catalogue can answer with. */
export const ERROR_STATUSES: number[] = [...new Set(Object.values(CATALOGUE).map((c) => c.status))].sort((a, b) => a - b);

/** The error envelope with the codes it may carry. */
function errorEnvelope(codes: readonly string[]): Schema {
  return {
    type: 'object',
    required: ['ok', 'error', 'meta'],
    properties: {
      ok: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message', 'details', 'request_id'],
        properties: { code: { type: 'string', enum: [...codes] }, message: { type: 'string' }, details: { type: 'array', items: ref('ErrorDetail') }, request_id: { type: 'string', description: 'Also in X-Request-Id.' } },
      },
      meta: { type: 'object', required: ['credits_charged'], properties: { credits_charged: { const: 0 } } },
    },
  };
}

/** The error envelope restricted to the codes of one status, with an example per code. */
function errorResponse(status: number): Schema {
  const codes = codesOf(status);
  const example = (code: ErrorCode) => ({
    ok: false,
    error: { code, message: CATALOGUE[code].message, details: [ERROR_DETAIL_EXAMPLES[status] ?? { field: 'request', issue: 'invalid_value' }], request_id: 'req_0123456789abcdef' },
    meta: { credits_charged: 0 },
  });
  return {
    description: codes.map((c) => `${c}: ${CATALOGUE[c].message}`).join('; '),
    content: {
      'application/json': {
        schema: errorEnvelope(codes),
        examples: Object.fromEntries(codes.map((c) => [c, { summary: CATALOGUE[c].message, value: example(c) }])),
      },
    },
  };
}

/** Component responses: one per error status used (`Error400`, `Error401` ...); a status the catalogue lacks throws. */
export function errorResponses(statuses: readonly number[]): Record<string, Schema> {
  return Object.fromEntries(ERROR_STATUSES.filter((s) => statuses.includes(s)).map((s) => [`Error${s}`, errorResponse(s)]));
}

const KEY: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, org: { type: 'string' }, user: { type: 'string' }, name: { type: 'string' },
    key_type: { type: 'string', enum: [...KEY_TYPES] }, scopes: { type: 'array', items: { type: 'string', enum: [...ALL_SCOPES] } },
    field_tier: { type: 'string', enum: ['basic', 'advanced'] }, entity_field_tiers: { type: 'object', additionalProperties: { type: 'string', enum: ['basic', 'advanced'] } },
    field_tiers: { type: 'object' }, parent_id: { type: ['string', 'null'] }, internal: { type: 'boolean' }, secret_prefix: { type: 'string' },
    status: { type: 'string', enum: [...KEY_STATES] }, created_at: { type: 'string' }, revoked_at: { type: ['string', 'null'] }, rotated_at: { type: ['string', 'null'] },
  },
};

/** Every component schema. */
export function componentSchemas(): Record<string, Schema> {
  return {
    Meta: { type: 'object', required: ['credits_charged'], properties: { credits_charged: { type: 'number', description: 'Credits charged for this call.' } }, additionalProperties: true },
    ListMeta: {
      type: 'object',
      required: ['credits_charged'],
      additionalProperties: true,
      properties: {
        credits_charged: { type: 'number' }, total_count: { type: 'integer', description: 'Omitted with include_count=false or while count_pending.' }, count_pending: { type: 'boolean' },
        page: { type: 'integer' }, page_size: { type: 'integer' }, returned: { type: 'integer' }, has_more: { type: 'boolean' }, next_cursor: { type: 'string' },
        response_tier: { type: 'string', enum: ['basic', 'advanced'] }, key_tier: { type: 'string', enum: ['basic', 'advanced'] }, applied_filters: { type: 'object' },
        dry_run: { type: 'boolean' }, estimated_credits: { type: 'number' }, estimated_rows: { type: 'integer' },
      },
    },
    ErrorDetail: {
      type: 'object',
      required: ['field', 'issue'],
      properties: { field: { type: 'string' }, issue: { type: 'string', enum: [...ISSUE_CODES] }, expected: { description: 'Allowed values or the expected form.' }, suggestions: { type: 'array', items: {} } },
    },
    FlatRow: { type: 'object', required: ['id'], properties: { id: { type: 'string' } }, additionalProperties: { type: 'string' }, description: 'A row with format=flat: every value a string (arrays joined, null empty), lead_source split into lead_source and lead_source_retrieved_at; the columns of the CSV export.' },
    ApiKey: KEY,
    ApiKeyWithSecret: { allOf: [KEY, { type: 'object', required: ['secret'], properties: { secret: { type: 'string', description: 'Shown once.' } } }] },
    ApiKeyWithUsage: { allOf: [KEY, { type: 'object', properties: { credits_used: { type: 'number' }, rows_returned: { type: 'integer' }, queries: { type: 'integer' }, cache_hits: { type: 'integer' } } }] },
    TagRecord: {
      type: 'object',
      properties: { id: { type: 'string' }, tag_id: { type: 'string', description: 'The id, as GET /v1/tags names it.' }, entity_id: { type: 'string' }, entity_type: { type: 'string', enum: ENTITIES.map((d) => d.name) }, tag: { type: 'string' }, created_at: { type: 'string' }, user_id: { type: ['string', 'null'] }, deleted: { type: 'boolean' } },
    },
    ...Object.fromEntries(ENTITIES.map((def) => [rowName(def), rowSchema(def)])),
  };
}

/** The row of an entity as a read answers it: nested (format=json) or flat (format=flat). */
export const rowOf = (def: EntityDef): Schema => ({ anyOf: [ref(rowName(def)), ref('FlatRow')] });

/** The success envelope around a data schema, with a meta schema. */
export const envelopeOf = (data: Schema, meta: Schema = ref('Meta')): Schema => ({ type: 'object', required: ['ok', 'data', 'meta'], properties: { ok: { const: true }, data, meta } });

/** The autocomplete item (spec: `{id, label, resource, value}`), for the autocomplete operations. */
export const AUTOCOMPLETE_ITEM: Schema = {
  type: 'object',
  required: ['id', 'label', 'resource', 'value'],
  properties: { id: { type: 'string', description: 'Entity id (may be empty for personnel).' }, label: { type: 'string' }, resource: { type: 'string', enum: ENTITIES.map((d) => d.name) }, value: { type: 'string', description: 'Usable as a search value on the list.' } },
};
