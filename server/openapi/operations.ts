/**
 * The operation table of the OpenAPI document: one entry per route the server registers, keyed
 * by method and path template, with its access (public, any key, any live key, or a scope),
 * summary, parameters (from the allowlists the route reads with), body (the ajv schema the route
 * validates with), success data and error statuses. test/server/openapi.test.ts compares the
 * keys with the routers' registered routes, both ways.
 */
import { ENTITIES, ENTITY_NAMES, entity } from '../../mappings/index.ts';
import { OPTION_KEY_NAMES } from '../../mappings/filter-options.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { CREATE_KEY_SCHEMA, REVOKE_TOKENS_SCHEMA } from '../routes/api-keys.ts';
import { JOB_STATUSES } from '../jobs/kind.ts';
import { BROKER_LOOKUP_PARAMS, COMPANY_LOOKUP_PARAMS, IDS_BODY_SCHEMA, READ_PARAMS, personnelBatchSchema } from '../routes/lookup.ts';
import { detailParams } from '../routes/read.ts';
import { BULK_BODY_SCHEMA, PAIR_BODY_SCHEMA, TAG_ENTITIES_QUERY_SCHEMA, TAG_LIST_QUERY_SCHEMA } from '../routes/tags.ts';
import { EXPORT_SYNC_MAX, syncExportParams } from '../read/export.ts';
import { WALK_MAX } from '../read/page.ts';
import { listParams } from '../read/list-request.ts';
import { PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, sideParams } from '../read/request.ts';
import { exportOverrides, pathParameter, queryParameters, schemaParameters, type Parameter, type Schema } from './params.ts';
import { AUTOCOMPLETE_ITEM, ref, rowOf } from './schemas.ts';
import { AUTOCOMPLETE_LIMIT, autocompleteParams } from '../read/autocomplete.ts';
import { START_JOB_SCHEMA } from '../writing/job-request.ts';
import { IDENTITY_SCHEMA } from '../writing/identity.ts';
import { TEMPERATURE_BODY_SCHEMA } from '../writing/temperature.ts';
import { PLAIN_KINDS, PLAYS_BULK_MAX, bulkSchema, createSchema, patchSchema } from '../routes/writing-resources.ts';
import { WAIT_MS_MAX } from '../routes/writing-jobs.ts';
import { USAGE_MAX_DAYS } from '../routes/usage.ts';
import { LOOKALIKE_DEFAULT_LIMIT, LOOKALIKE_MAX_RESULTS, LOOKALIKE_MAX_SEEDS, LOOKALIKE_MIN_SEEDS, LOOKALIKE_TYPES } from '../read/lookalikes.ts';
import { FEEDBACK_TEXT_MAX, FLAG_PATHS, SUGGESTED_VALUE_MAX } from '../routes/feedback.ts';
import { FEEDBACK_STATUSES, feedbackIdPattern } from '../services/feedback.ts';
import { KEY_ID_PATTERN } from '../services/keys.ts';
import { EXPORT_ID_PATTERN, EXPORT_JOB_VIEW_SCHEMA } from '../read/async-export.ts';
import { EXPORT_BODY_SCHEMA } from '../read/export-job.ts';
import { WRITING_JOB_ID_PATTERN, WRITING_JOB_VIEW_SCHEMA } from '../writing/job-view.ts';
import { CHANNELS } from '../writing/context.ts';
import { idPatternSource } from '../writing/store.ts';
import { FORMATS, MODES } from '../read/request.ts';
import { LEAD_TYPES } from '../../mappings/reference.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../validate.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';

/** Who may call: nobody needs a key, any key, any live key, or a key holding a scope. */
/** Who may call an operation; `root`: a root API key may, whatever its scopes (child keys and tokens need the scope). */
export type Access = { kind: 'public' } | { kind: 'key' } | { kind: 'live' } | { kind: 'scope'; scope: string; root?: true };

/** One operation of the document. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template (`/v1/companies/{id}`). */
  path: string;
  /** The group it is shown under (a resource, account, api-keys, tags ...). */
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  parameters?: Parameter[];
  body?: { schema: Schema; example: unknown };
  /** Success: status (200 by default; `created` adds 201, `accepted` 202 for a job queued), data and meta schemas, or a non-JSON media type. */
  success: { data?: Schema; meta?: Schema; created?: boolean; accepted?: boolean; gzip?: boolean; notModified?: boolean; media?: 'text/csv' | 'text/html' | 'application/json' | 'asset' };
  /** Error statuses besides the access ones (401, 403, 429, 500, 503 for keyed calls). */
  errors?: number[];
}

/** `GET /v1/companies/{id}`: the key of an operation and of a registered route. */
export const operationKey = (op: Pick<Operation, 'method' | 'path'>): string => `${op.method.toUpperCase()} ${op.path}`;

const scope = (s: string): Access => ({ kind: 'scope', scope: s });
const KEY: Access = { kind: 'key' };
const PUBLIC: Access = { kind: 'public' };
const array = (items: Schema): Schema => ({ type: 'array', items });
const obj: Schema = { type: 'object' };
/** The data of a list asked with count_only=true: the count, no rows. */
const COUNT_ONLY: Schema = { type: 'object', additionalProperties: false, required: ['total_count'], properties: { total_count: { type: 'integer', minimum: 0 } }, description: 'count_only=true: the count alone.' };
/** The data of a one-row read asked with dry_run=true: no row (meta holds the estimate). */
const DRY_RUN_ROW: Schema = { type: 'object', maxProperties: 0, description: 'dry_run=true: no row; meta holds the estimate.' };
/** One row, or nothing on a dry run. */
const oneRow = (def: EntityDef): Schema => ({ anyOf: [rowOf(def), DRY_RUN_ROW] });
/** 400 parameters, 402 credits, 404 record: a priced read. */
const PRICED = [400, 402, 404];
/** A JSON body: 400 invalid, 413 too large, 415 not JSON. */
const BODY = [400, 413, 415];

/** `page` and `page_size` of a paged list (pageParams), with `extra` filters before them; `what` names the rows. */
const pagedParameters = (what: string, extra: { properties: Record<string, Schema>; about: Record<string, string> } = { properties: {}, about: {} }): Parameter[] =>
  schemaParameters(
    { properties: { ...extra.properties, page: { type: 'integer', minimum: 0, maximum: PAGE_MAX, default: 0 }, page_size: { type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT } } },
    { ...extra.about, page: 'Zero-based page.', page_size: `${what} per page.` },
  );

const idParam = (def: EntityDef) => pathParameter('id', `The ${def.label} id.`, { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' });

/** The list, detail and export of a resource, and its tags. */
function resourceOperations(def: EntityDef): Operation[] {
  const read = scope(`read:${def.name}`);
  const row = rowOf(def);
  return [
    { method: 'get', path: `/v1/${def.name}`, tag: def.name, summary: `List ${def.name}`, description: 'Filters, sort, paging and cursors; priced per returned row at the response tier (dry_run estimates).', access: read, parameters: queryParameters({ names: listParams(def), def }), success: { data: { oneOf: [array(row), COUNT_ONLY] }, meta: ref('ListMeta') }, errors: [400, 402] },
    { method: 'get', path: `/v1/${def.name}/{id}`, tag: def.name, summary: `One ${def.label}`, access: read, parameters: [idParam(def), ...queryParameters({ names: detailParams(def), def })], success: { data: oneRow(def) }, errors: PRICED },
    {
      method: 'get', path: `/v1/${def.name}/export.csv`, tag: def.name, summary: `Export ${def.name} as CSV`, description: `The rows of a list call as CSV (up to ${EXPORT_SYNC_MAX}); the price is held before the first byte (402 there) and settled to the rows the connection took; headers X-Export-Rows, X-Total-Count, X-Credits-Charged.`, access: read,
      parameters: queryParameters({ names: syncExportParams(def), def, overrides: exportOverrides(EXPORT_SYNC_MAX, WALK_MAX) }),
      success: { media: 'text/csv' }, errors: [400, 402],
    },
    {
      method: 'get', path: `/v1/${def.name}/autocomplete`, tag: def.name, summary: `Autocomplete ${def.name}`, description: 'Typeahead suggestions, free (rate limited); one typo forgiven from the fifth character.', access: read,
      parameters: queryParameters({ names: autocompleteParams(def), def, overrides: { search: { description: 'Alias of query.' }, ...(def.side ? { [def.side.param]: { description: `Optional here: ${def.side.values.join(' or ')} suggests that side only; without it both sides (the label tells them apart).`, required: false } } : {}), limit: { description: 'Items to return.', schema: { type: 'integer', minimum: AUTOCOMPLETE_LIMIT.min, maximum: AUTOCOMPLETE_LIMIT.max, default: AUTOCOMPLETE_LIMIT.fallback } } } }),
      success: { data: array(AUTOCOMPLETE_ITEM) }, errors: [400],
    },
    { method: 'get', path: `/v1/${def.name}/{id}/tags`, tag: 'tags', summary: `The caller's tags on one ${def.label}`, access: scope('tags:read'), parameters: [idParam(def)], success: { data: array(ref('TagRecord')) }, errors: [400, 404] },
  ];
}

/** Lookups and batches (server/routes/lookup.ts). */
function lookupOperations(): Operation[] {
  const companies = entity('companies');
  const brokers = entity('brokers');
  const personnel = entity('personnel');
  const side = sideParams(personnel);
  return [
    { method: 'get', path: '/v1/companies/lookup', tag: 'companies', summary: 'Look a company up by domain, name or EIN', access: scope('read:companies'), parameters: queryParameters({ names: COMPANY_LOOKUP_PARAMS, def: companies }), success: { data: oneRow(companies) }, errors: PRICED },
    { method: 'get', path: '/v1/brokers/lookup', tag: 'brokers', summary: 'Look a broker up by name', description: 'Several matches: 400 AMBIGUOUS_LOOKUP with suggestions.', access: scope('read:brokers'), parameters: queryParameters({ names: BROKER_LOOKUP_PARAMS, def: brokers, overrides: { name: { required: true } } }), success: { data: oneRow(brokers) }, errors: PRICED },
    { method: 'post', path: '/v1/companies/batch', tag: 'companies', summary: 'Companies by id (up to 100)', access: scope('read:companies'), parameters: queryParameters({ names: READ_PARAMS, def: companies }), body: { schema: IDS_BODY_SCHEMA, example: { ids: ['cmp_0001', 'cmp_0002'] } }, success: { data: array(rowOf(companies)) }, errors: [...BODY, 402] },
    {
      method: 'post', path: '/v1/personnel/batch', tag: 'personnel', summary: 'Contacts of up to 50 companies by EIN, or personnel by id', access: scope('read:personnel'),
      parameters: queryParameters({ names: [...READ_PARAMS, ...side], def: personnel, overrides: Object.fromEntries(side.map((p) => [p, { required: false, description: 'The side, here or in the body (both given must agree).' }])) }),
      body: { schema: personnelBatchSchema(personnel), example: { company_eins: ['12-3456789'], [side[0] ?? 'lead_type']: personnel.side?.values[0], page_size: 5 } },
      success: { data: array(obj) }, errors: [...BODY, 402],
    },
  ];
}

/** Health, the document and the docs page: no key. */
function publicOperations(): Operation[] {
  const dep: Schema = { type: 'object', properties: { ok: { type: 'boolean' }, status: { type: 'string' } } };
  return [
    { method: 'get', path: '/v1/health', tag: 'account', summary: 'Health of Elasticsearch and Redis', access: PUBLIC, success: { data: { type: 'object', properties: { status: { const: 'ok' }, elasticsearch: dep, redis: dep, version: { type: 'string' }, ms: { type: 'integer' } } } }, errors: [503] },
    { method: 'get', path: '/v1/health/live', tag: 'account', summary: 'Liveness: 200 while the process serves, whatever its dependencies (readiness is /v1/health)', access: PUBLIC, success: { data: { type: 'object', properties: { status: { const: 'alive' }, uptime_s: { type: 'integer' }, pid: { type: 'integer' } } } } },
    { method: 'get', path: '/v1/changelog', tag: 'docs', summary: 'The dated changelog (CHANGELOG.md) as JSON, newest first', access: PUBLIC, success: { data: array({ type: 'object', required: ['version', 'date', 'changes'], properties: { version: { type: 'string' }, date: { type: 'string', format: 'date' }, changes: array({ type: 'object', properties: { type: { type: 'string', enum: ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'] }, description: { type: 'string' } } }) } }) } },
    { method: 'get', path: '/v1/openapi.json', tag: 'docs', summary: 'This OpenAPI 3.1 document', access: PUBLIC, success: { media: 'application/json' } },
    { method: 'get', path: '/v1/docs', tag: 'docs', summary: 'Interactive documentation (Swagger UI, served locally)', access: PUBLIC, success: { media: 'text/html' } },
    { method: 'get', path: '/v1/docs/{file}', tag: 'docs', summary: 'An asset of the documentation page', access: PUBLIC, parameters: [pathParameter('file', 'The asset file name.')], success: { media: 'asset' }, errors: [404] },
  ];
}

/** whoami, credits and API keys. */
function accountOperations(): Operation[] {
  const keyId = pathParameter('key_id', 'The key id (key_…).', { type: 'string', pattern: KEY_ID_PATTERN });
  return [
    { method: 'get', path: '/v1/whoami', tag: 'account', summary: 'The calling key, organization and user', access: KEY, success: { data: { type: 'object', properties: { key: ref('ApiKey'), organization: { type: 'string' }, user: { type: 'string' }, sandbox: { type: 'boolean' }, data_namespace: { type: 'string', enum: ['live', 'sandbox'] } } } } },
    { method: 'get', path: '/v1/credits', tag: 'account', summary: "The organization's balance and this key's usage", description: 'Any live key; test keys 403 test_key_not_allowed.', access: { kind: 'live' }, success: { data: obj } },
    { method: 'get', path: '/v1/api-keys', tag: 'api-keys', summary: 'The keys the caller may manage, with usage', description: 'A root key lists itself and every child key of its user; a child key itself. Revoked keys are listed until their purge (BINTEL_REVOKED_KEY_RETENTION_S, default 30 days).', access: scope('keys:read'), success: { data: array(ref('ApiKeyWithUsage')) } },
    { method: 'post', path: '/v1/api-keys', tag: 'api-keys', summary: 'Create a child key (root key); the secret is shown once', description: `A user has at most BINTEL_MAX_CHILD_KEYS (default ${CONFIG_DEFAULTS.maxChildKeys}) active child keys, whichever of its root keys made them; an organization at most BINTEL_MAX_ORG_KEYS (default ${CONFIG_DEFAULTS.maxOrgKeys}) active keys; a user creates at most BINTEL_MAX_KEY_CREATIONS_PER_DAY (default ${CONFIG_DEFAULTS.maxKeyCreationsPerDay}) child keys per UTC day, revoked ones included. Beyond any: 429 QUOTA_EXCEEDED with the limit in details[].expected.`, access: scope('keys:write'), body: { schema: CREATE_KEY_SCHEMA, example: { scopes: ['read:companies'], name: 'reporting', field_tier: 'basic' } }, success: { data: ref('ApiKeyWithSecret'), created: true }, errors: BODY },
    { method: 'delete', path: '/v1/api-keys/{key_id}', tag: 'api-keys', summary: 'Revoke a key: every secret it ever had fails at once; a root key revokes its child keys with it', description: 'A key revokes itself; a root key also any child key of its user. Any other key (another user\'s, an internal one) is 404 as an unknown id.', access: scope('keys:write'), parameters: [keyId], success: { data: ref('ApiKey') }, errors: [404] },
    { method: 'post', path: '/v1/api-keys/{key_id}/rotate', tag: 'api-keys', summary: 'Rotate a key: a new secret, the old one fails at once', description: 'A key rotates itself; a root key also any child key of its user; any other key is 404 as an unknown id. A compare-and-set on the current secret: of two concurrent rotations one answers 200 and the other 409 (concurrent_change); a revoked key answers 409 (revoked).', access: scope('keys:write'), parameters: [keyId], success: { data: ref('ApiKeyWithSecret') }, errors: [404, 409] },
    { method: 'post', path: '/v1/tokens/revoke', tag: 'api-keys', summary: "Revoke JWTs of the caller's user: one token until its exp, or every token issued until now", description: "Body: `token` (a JWT of the caller's organization and user; another user's token is 404 as an unknown one; the revocation lasts until the token's exp, also for a token not valid yet) or `all: true` (every JWT of the caller's user whose iat is at or before this second, and every one without iat, is refused from now on; tokens issued later are accepted).", access: scope('keys:write'), body: { schema: REVOKE_TOKENS_SCHEMA, example: { all: true } }, success: { data: { type: 'object', properties: { jti: { type: 'string' }, revoked_until: { type: 'string', format: 'date-time' }, user: { type: 'string' }, revoked_before: { type: 'string', format: 'date-time' } } } }, errors: [...BODY, 404] },
  ];
}

/** Filter options (server/routes/filter-options.ts): any key, free. */
function filterOptionOperations(): Operation[] {
  const names = [...OPTION_KEY_NAMES, ...ENTITY_NAMES];
  return [
    { method: 'get', path: '/v1/filter-options', tag: 'filter-options', summary: 'Option keys and resources', access: KEY, success: { data: obj }, errors: [400] },
    { method: 'get', path: '/v1/filter-options/{name}', tag: 'filter-options', summary: 'Values of an option key, or every filter of a resource', access: KEY, parameters: [pathParameter('name', 'An option key or a resource.', { type: 'string', enum: names })], success: { data: { oneOf: [obj, array(obj)] } }, errors: [400, 404] },
    { method: 'get', path: '/v1/filter-options/{resource}/{filter}', tag: 'filter-options', summary: 'One filter of a resource and its values', access: KEY, parameters: [pathParameter('resource', 'A resource.', { type: 'string', enum: [...ENTITY_NAMES] }), pathParameter('filter', 'A filter parameter of the resource.')], success: { data: obj }, errors: [400, 404] },
  ];
}

/** Async exports (server/routes/exports.ts): an extension beyond the spec. */
function exportJobOperations(): Operation[] {
  const id = pathParameter('id', 'The export id (exp_…).', { type: 'string', pattern: EXPORT_ID_PATTERN });
  const job = EXPORT_JOB_VIEW_SCHEMA as unknown as Schema;
  const paging = pagedParameters('Exports', { properties: { status: { type: 'string', enum: [...JOB_STATUSES] } }, about: { status: 'Only jobs in this state.' } });
  const readable = "A job is read only by its user's keys and tokens (the key that started it, its root and child keys, tokens of the same user) that could read its rows: read:<resource>, a tier for the resource at least the job's (`tier`), and the job's side (test keys sandbox jobs, live keys live ones)";
  const body = EXPORT_BODY_SCHEMA as Schema;
  return [
    { method: 'post', path: '/v1/exports', tag: 'exports', summary: 'Start an async export (reserves credits for the exact count)', description: `Live keys holding read:<resource> (test keys 403 test_key_not_allowed). Idempotency-Key: a repeat with the same body returns the same job (200, meta.idempotency_reused), another body or another key is 409. 202 Accepted with Location; meta.credits_reserved is the reservation, meta.credits_charged 0 until the job settles. 429 RATE_LIMITED when the organization already has BINTEL_EXPORT_MAX_ACTIVE (default ${CONFIG_DEFAULTS.exportMaxActive}) exports queued or running; 429 QUOTA_EXCEEDED when it keeps BINTEL_EXPORT_MAX_RETAINED (default ${CONFIG_DEFAULTS.exportMaxRetained}) export jobs of any status (Retry-After: until the oldest expires). Filters that match no row are 400 (filters/no_matching_rows), nothing reserved. The export takes the crawl step of its question's first row and its rows count toward the user's daily row cap, as list pages do.`, access: { kind: 'live' }, body: { schema: body, example: { resource: 'companies', max_rows: 20000, states: 'TX,CA' } }, success: { data: job, accepted: true }, errors: [...BODY, 402, 409, 429] },
    { method: 'get', path: '/v1/exports', tag: 'exports', summary: "The organization's exports this key may read, newest first", description: `${readable}; the list and total_count leave the others out. Reads the organization's newest BINTEL_EXPORT_MAX_RETAINED (default ${CONFIG_DEFAULTS.exportMaxRetained}) jobs, as many as it may keep.`, access: KEY, parameters: paging, success: { data: array(job), meta: ref('ListMeta') }, errors: [400] },
    { method: 'get', path: '/v1/exports/{id}', tag: 'exports', summary: 'Status and progress of an export', description: `${readable}; any other is 404, as an unknown id.`, access: KEY, parameters: [id], success: { data: job }, errors: [404] },
    { method: 'get', path: '/v1/exports/{id}/download', tag: 'exports', summary: 'The file of a completed export', description: `${readable}; any other is 404, as an unknown id. 409 before completion, 410 once expired.`, access: KEY, parameters: [id], success: { media: 'text/csv', gzip: true }, errors: [404, 409, 410] },
  ];
}

/** Saved writing resources (server/routes/writing-resources.ts): live keys, 0 credits. */
function writingResourceOperations(): Operation[] {
  const read = scope('writing:read');
  const write = scope('writing:write');
  const meta: Schema = { type: 'object', properties: { id: { type: 'string' }, created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' } } };
  const listing = pagedParameters('Records', { properties: { search: { type: 'string', minLength: 1, maxLength: 200 } }, about: { search: 'Case- and accent-insensitive text in the record.' } });
  const deleted: Schema = { type: 'object', properties: { id: { type: 'string' }, deleted: { const: true } } };
  const ops: Operation[] = [];
  const caps = CONFIG_DEFAULTS.records;
  const writingCaps = `Each kind: at most BINTEL_WRITING_MAX_PER_USER (default ${caps.writingMaxPerUser}) per user and BINTEL_WRITING_MAX_PER_ORG (default ${caps.writingMaxPerOrg.toLocaleString('en-US')}) per organization: 429 QUOTA_EXCEEDED beyond (details[0].expected: {limit, current, per}), nothing written.`;
  const identityCaps = `At most BINTEL_IDENTITIES_MAX_PER_USER (default ${caps.identitiesMaxPerUser}) per user and BINTEL_IDENTITIES_MAX_PER_ORG (default ${caps.identitiesMaxPerOrg}) per organization (429 QUOTA_EXCEEDED), each at most BINTEL_IDENTITY_MAX_BYTES (default ${caps.identityMaxBytes.toLocaleString('en-US')}) bytes of JSON (413).`;
  for (const k of PLAIN_KINDS) {
    const record: Schema = { type: 'object', properties: { ...(meta.properties as Record<string, Schema>), ...(createSchema(k).properties as Record<string, Schema>) } };
    const base = `/v1/${k.path}`;
    const id = pathParameter('id', `The ${k.label} id.`, { type: 'string', pattern: idPatternSource(k.kind) });
    const sample = Object.fromEntries(Object.keys(k.fields).filter((f) => k.required.includes(f)).map((f) => [f, f === 'name' ? `My ${k.label}` : `The ${f} of the ${k.label}`]));
    const create: Schema = k.bulk ? { oneOf: [createSchema(k), bulkSchema(k)] } : createSchema(k);
    ops.push(
      { method: 'get', path: base, tag: 'writing', summary: `The caller's ${k.label}s, newest first`, description: `${k.label}s are personal: another user's, even of the organization, never show (404 by id, invalid_reference in jobs).`, access: read, parameters: listing, success: { data: array(record), meta: ref('ListMeta') }, errors: [400] },
      { method: 'post', path: base, tag: 'writing', summary: `Create a ${k.label}${k.bulk ? ` (or up to ${PLAYS_BULK_MAX} with \`${k.bulk}\`: an array, meta.bulk true, all or nothing)` : ''}`, description: writingCaps, access: write, body: { schema: create, example: sample }, success: { data: k.bulk ? { oneOf: [record, array(record)] } : record, created: true }, errors: BODY },
      { method: 'get', path: `${base}/{id}`, tag: 'writing', summary: `One ${k.label}`, access: read, parameters: [id], success: { data: record }, errors: [404] },
      { method: 'patch', path: `${base}/{id}`, tag: 'writing', summary: `Change a ${k.label} (the members sent)`, access: write, parameters: [id], body: { schema: patchSchema(k), example: { name: `Renamed ${k.label}` } }, success: { data: record }, errors: [...BODY, 404] },
      { method: 'delete', path: `${base}/{id}`, tag: 'writing', summary: `Delete a ${k.label} (soft: gone from lists and jobs)`, access: write, parameters: [id], success: { data: deleted }, errors: [404] },
    );
  }
  const identity: Schema = { type: 'object', properties: { ...(meta.properties as Record<string, Schema>), ...(IDENTITY_SCHEMA.properties as unknown as Record<string, Schema>) } };
  const idn = pathParameter('id', 'The identity id (idn_…).', { type: 'string', pattern: idPatternSource('identity') });
  const example = { companyName: 'Northwind Benefits', versionName: 'Q4', valueProps: [{ id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' }], brandVoice: { avoid: ['synergy', 'em dash'] } };
  const etag = 'Reads carry a strong ETag; a write that replaces an array (PUT, or a PATCH holding an array) needs If-Match: 428 without it, 412 when stale, nothing applied either way.';
  const temperature: Schema = { type: 'object', properties: { global_temperature: { type: 'number' }, personal_play_temperature_override: { oneOf: [{ type: 'number' }, { type: 'null' }] }, effective_temperature: { type: 'number' }, temperature_source: { type: 'string', enum: ['user', 'global'] } } };
  ops.push(
    { method: 'get', path: '/v1/identities/schema', tag: 'writing', summary: 'The JSON Schema of a marketing identity', access: read, success: { data: obj } },
    { method: 'get', path: '/v1/identities', tag: 'writing', summary: 'Identities of the organization (id, companyName, versionName)', description: 'Every user of the organization reads and uses them; only the user who saved one changes or deletes it (403 otherwise).', access: read, parameters: listing, success: { data: array(meta), meta: ref('ListMeta') }, errors: [400] },
    { method: 'post', path: '/v1/identities', tag: 'writing', summary: 'Save a marketing identity', description: `Answers with its ETag. ${identityCaps}`, access: write, body: { schema: IDENTITY_SCHEMA as unknown as Schema, example }, success: { data: identity, created: true }, errors: BODY },
    { method: 'get', path: '/v1/identities/{id}', tag: 'writing', summary: 'One identity, with its ETag', description: 'If-None-Match with the current ETag: 304.', access: read, parameters: [idn], success: { data: identity, notModified: true }, errors: [404] },
    { method: 'put', path: '/v1/identities/{id}', tag: 'writing', summary: 'Replace an identity (If-Match required)', description: `${etag} Only the user who saved it (403 otherwise); at most BINTEL_IDENTITY_MAX_BYTES (413).`, access: write, parameters: [idn], body: { schema: IDENTITY_SCHEMA as unknown as Schema, example }, success: { data: identity }, errors: [...BODY, 404, 412, 428] },
    { method: 'patch', path: '/v1/identities/{id}', tag: 'writing', summary: 'Change an identity (JSON merge patch)', description: `${etag} Objects merge, arrays replace, null removes. Only the user who saved it (403 otherwise); the result at most BINTEL_IDENTITY_MAX_BYTES (413).`, access: write, parameters: [idn], body: { schema: obj, example: { versionName: 'Q1' } }, success: { data: identity }, errors: [...BODY, 404, 412, 428] },
    { method: 'delete', path: '/v1/identities/{id}', tag: 'writing', summary: 'Delete an identity (soft)', description: 'Only the user who saved it (403 otherwise). If-Match is checked when sent.', access: write, parameters: [idn], success: { data: deleted }, errors: [404, 412] },
    { method: 'get', path: '/v1/writing/temperature', tag: 'writing', summary: "The caller's personal-play temperature", access: read, success: { data: temperature } },
    { method: 'post', path: '/v1/writing/temperature', tag: 'writing', summary: 'Set (or, null, clear) the personal-play temperature', access: write, body: { schema: TEMPERATURE_BODY_SCHEMA, example: { temperature: 1.1 } }, success: { data: temperature }, errors: BODY },
    { method: 'patch', path: '/v1/writing/temperature', tag: 'writing', summary: 'Same as POST', access: write, body: { schema: TEMPERATURE_BODY_SCHEMA, example: { temperature: null } }, success: { data: temperature }, errors: BODY },
    { method: 'get', path: '/v1/writing/options', tag: 'writing', summary: 'Saved plays, CTAs, subjects, channels and modes, and identity-derived choices', description: 'Without identity_id the identity-derived lists are empty and warnings hold IDENTITY_ID_REQUIRED with the fields; placeholders, incomplete case studies, repeated ids and quotes without a customer are left out, each an ITEM_EXCLUDED warning.', access: read, parameters: schemaParameters({ properties: { identity_id: { type: 'string' } } }, { identity_id: 'A saved identity.' }), success: { data: obj }, errors: [400] },
  );
  return ops;
}

/** Writing jobs (server/routes/writing-jobs.ts) and usage reports (server/routes/usage.ts). */
function writingJobOperations(): Operation[] {
  const str: Schema = { type: 'string' };
  const job = WRITING_JOB_VIEW_SCHEMA as Schema;
  const dryRun: Schema = { type: 'object', additionalProperties: false, required: ['dry_run', 'job_created', 'prose_generated', 'estimated_credits', 'resolved_context'], properties: { dry_run: { const: true }, job_created: { const: false }, prose_generated: { const: false }, estimated_credits: { type: 'number' }, resolved_context: obj } };
  const period = schemaParameters({ properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' } } }, { from: `First UTC day (default: 29 days before \`to\`); at most ${USAGE_MAX_DAYS} days in all.`, to: 'Last UTC day (default: today).' });
  const example = { source_mode: 'inline', channel: 'email', identity: { companyName: 'Northwind Benefits', valueProps: [{ id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' }], brandVoice: { avoid: ['synergy', 'em dash'] } }, target: { full_name: 'Dana Whitfield', title: 'VP People', company_name: 'Contoso Ltd' }, sender: { full_name: 'Sam Reyes', title: 'Partner' } };
  return [
    {
      method: 'post', path: '/v1/writing-jobs', tag: 'writing', summary: 'Start a writing job (email or LinkedIn)', access: scope('writing:generate'),
      description: `Live keys. Reserves ${CONFIG_DEFAULTS.writingCredits.email} (email) or ${CONFIG_DEFAULTS.writingCredits.linkedin} (LinkedIn) credits by default; charged on completion only, released on failure. Idempotency-Key: a repeat returns the original job (200, meta.idempotency_reused). dry_run=true answers 200 with the resolved context and the estimate, creating nothing. include_ai_costs and force_failure: internal tokens only.`,
      body: { schema: START_JOB_SCHEMA, example }, success: { data: { oneOf: [job, dryRun] }, accepted: true }, errors: [...BODY, 402, 409],
    },
    { method: 'get', path: '/v1/writing-jobs', tag: 'writing', summary: "The caller's writing jobs, newest first", access: scope('writing:read'), parameters: pagedParameters('Jobs', { properties: { status: { type: 'string', enum: [...JOB_STATUSES] }, channel: { type: 'string', enum: [...CHANNELS] } }, about: { status: 'Only jobs in this state.', channel: 'Only jobs of this channel.' } }), success: { data: array(job), meta: ref('ListMeta') }, errors: [400] },
    {
      method: 'get', path: '/v1/writing-jobs/{job_id}', tag: 'writing', summary: 'A writing job, with a bounded long poll', access: scope('writing:read'),
      description: 'With wait_ms, answers as soon as the job has an event beyond last_event_count (or beyond its count when the request came), when it is done, or when wait_ms pass.',
      parameters: [pathParameter('job_id', 'The job id (wj_…).', { type: 'string', pattern: WRITING_JOB_ID_PATTERN }), ...schemaParameters({ properties: { wait_ms: { type: 'integer', minimum: 0, maximum: WAIT_MS_MAX, default: 0 }, last_event_count: { type: 'integer', minimum: 0 } } }, { wait_ms: 'Longest wait, ms.', last_event_count: 'The eventCount the caller has seen.' })],
      success: { data: job }, errors: [400, 404],
    },
    { method: 'get', path: '/v1/usage/writing', tag: 'usage', summary: 'Writing jobs and credits by day, channel and operation', access: scope('usage:read'), parameters: period, success: { data: array({ type: 'object', properties: { day: { type: 'string', format: 'date' }, channel: str, operation: str, accepted: { type: 'integer' }, completed: { type: 'integer' }, failed: { type: 'integer' }, credits_reserved: { type: 'number' }, credits_charged: { type: 'number' }, credits_released: { type: 'number' } } }) }, errors: [400] },
    { method: 'get', path: '/v1/usage/ai-costs', tag: 'usage', summary: 'Model tokens by day, provider and model (internal tokens only)', access: { kind: 'live' }, parameters: period, success: { data: array(obj) }, errors: [400] },
  ];
}

/** Tags (server/routes/tags.ts). */
function tagOperations(): Operation[] {
  const read = scope('tags:read');
  const write = scope('tags:write');
  const tag = ref('TagRecord');
  const pair = { schema: PAIR_BODY_SCHEMA, example: { entity_type: 'companies', entity_id: 'cmp_0001', tag: 'q3-outreach' } };
  const about = { tag: 'A tag name.', tag_id: 'One of your tag ids.', entity_type: 'A resource.', resource: 'Alias of entity_type.' };
  const tagCaps = `One user (on one side) holds at most BINTEL_TAGS_MAX_PER_USER (default ${CONFIG_DEFAULTS.records.tagsMaxPerUser.toLocaleString('en-US')}) tag records, an organization BINTEL_TAGS_MAX_PER_ORG (default ${CONFIG_DEFAULTS.records.tagsMaxPerOrg.toLocaleString('en-US')}): 429 QUOTA_EXCEEDED beyond (details[0].expected: {limit, current, per}), nothing written.`;
  return [
    { method: 'post', path: '/v1/tags', tag: 'tags', summary: 'Tag an entity (201 created, 200 already tagged)', description: tagCaps, access: write, body: pair, success: { data: tag, created: true }, errors: BODY },
    { method: 'delete', path: '/v1/tags', tag: 'tags', summary: 'Remove a tag from an entity', access: write, body: pair, success: { data: tag }, errors: [...BODY, 404] },
    { method: 'post', path: '/v1/tags/bulk', tag: 'tags', summary: 'One tag on up to 100 entities', description: `All or nothing. ${tagCaps}`, access: write, body: { schema: BULK_BODY_SCHEMA, example: { entity_type: 'companies', entity_ids: ['cmp_0001', 'cmp_0002'], tag: 'q3-outreach' } }, success: { data: { type: 'object', properties: { created: { type: 'integer' }, matched: { type: 'integer' }, tags: array(tag) } }, created: true }, errors: BODY },
    { method: 'get', path: '/v1/tags', tag: 'tags', summary: "The caller's tags, newest first", access: read, parameters: schemaParameters(TAG_LIST_QUERY_SCHEMA, about), success: { data: array(tag), meta: ref('ListMeta') }, errors: [400] },
    { method: 'get', path: '/v1/tags/entities', tag: 'tags', summary: 'Tag records of the entities sharing a tag', access: read, parameters: schemaParameters(TAG_ENTITIES_QUERY_SCHEMA, about), success: { data: array(tag), meta: ref('ListMeta') }, errors: [400, 404] },
    { method: 'delete', path: '/v1/tags/{tag_id}', tag: 'tags', summary: 'Remove a tag record by id', access: write, parameters: [pathParameter('tag_id', 'The tag id.')], success: { data: tag }, errors: [404] },
  ];
}

/** The features of each lookalike type with their weights, for the operation's description. */
const lookalikeFeatureText = (): string =>
  ENTITIES.filter((d) => d.lookalike)
    .map((d) => `${d.name}: ${d.lookalike!.features.map((f) => `${f.name} (${f.weight})`).join(', ')}`)
    .join('; ');

/** POST /v1/lookalikes (server/read/lookalikes.ts). */
function lookalikeOperations(): Operation[] {
  const id: Schema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' };
  const scalar: Schema[] = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }];
  const body: Schema = {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'seed_ids'],
    properties: {
      type: { type: 'string', enum: [...LOOKALIKE_TYPES], description: 'What to find; the key needs read:<type>.' },
      seed_ids: { type: 'array', items: id, minItems: LOOKALIKE_MIN_SEEDS, maxItems: LOOKALIKE_MAX_SEEDS, uniqueItems: true, description: "Rows of the type in the key's data (test keys: the sandbox); an unknown id is 400 invalid_reference." },
      limit: { type: 'integer', minimum: 1, maximum: LOOKALIKE_MAX_RESULTS, default: LOOKALIKE_DEFAULT_LIMIT },
      filters: { type: 'object', description: "The list's filter parameters of the type (states, industries, cf[...], signals, tags, crm_status, search ...; personnel: lead_type), as in its query string. Every result honours every filter. No paging, sorting or shaping parameters.", additionalProperties: { oneOf: [...scalar, { type: 'array', items: { oneOf: scalar } }] } },
      exclude_seeds: { type: 'boolean', default: true },
      fields: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'As on the list: id plus these fields.' },
      mode: { type: 'string', enum: [...MODES], default: 'basic' },
      format: { type: 'string', enum: [...FORMATS], default: 'json' },
      dry_run: { type: 'boolean', default: false, description: 'The estimate (min(limit, matches) credits), no rows, nothing charged.' },
      lead_type: { type: 'string', enum: [...LEAD_TYPES], description: 'Personnel: the side (here or in filters; both given must agree).' },
    },
  };
  const reason: Schema = { type: 'object', required: ['feature', 'field', 'match', 'value', 'seeds'], properties: { feature: { type: 'string' }, field: { type: 'string' }, match: { type: 'string', enum: ['same', 'adjacent'] }, value: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, seeds: { type: 'integer', minimum: 1, maximum: LOOKALIKE_MAX_SEEDS } } };
  const result: Schema = { type: 'object', required: ['id', 'score', 'reasons'], properties: { id: { type: 'string' }, score: { type: 'number', minimum: -1, maximum: 1, description: 'Cosine similarity of the feature vectors (1: the same features as the seeds).' }, reasons: { type: 'array', items: reason } }, additionalProperties: true };
  return [
    {
      method: 'post', path: '/v1/lookalikes', tag: 'lookalikes', summary: 'Up to 50 ranked rows like one to five seeds', access: KEY,
      description: `Companies, broker offices or email-eligible contacts ranked by the similarity of their features to the seeds, each with the reasons it matched and the row shaped by fields/mode. Scope read:<type>. 1 credit per returned live result, debited once; test keys, dry runs, no match and failed calls cost 0. No paging: the same call answers the same rows. Features (weight): ${lookalikeFeatureText()}. The query is the centroid of the seeds' feature vectors, searched with approximate knn under the list filters (exact, every candidate scored, while meta.index_status is building after a load). Measured: for seed sets of one NAICS subsector and employee band, 100% of results share the subsector and 100% the band or a neighbouring one (more_like_this on the same fields: 15-25% and 76-77%).`,
      body: { schema: body, example: { type: 'companies', seed_ids: ['cmp_0001', 'cmp_0002', 'cmp_0003'], limit: 25, filters: { states: 'TX,OK', employee_bands: '51-200,201-500' } } },
      success: { data: array(result), meta: { type: 'object', required: ['credits_charged', 'index_status'], properties: { credits_charged: { type: 'number' }, index_status: { type: 'string', enum: ['ready', 'building'], description: 'ready: the approximate knn index of the type is built. building: a load has just replaced the rows and its knn graph is still being written; every candidate row is scored instead (exact results, slower calls) until it is ready.' } }, additionalProperties: true } }, errors: [...BODY, 402],
    },
  ];
}

/** Bug reports and review flags (server/routes/feedback.ts): live root keys, or live keys and tokens with feedback:read / feedback:write, 0 credits. */
function feedbackOperations(): Operation[] {
  const reads: Access = { kind: 'scope', scope: 'feedback:read', root: true };
  const writes: Access = { kind: 'scope', scope: 'feedback:write', root: true };
  const capped = `An organization holds at most BINTEL_FEEDBACK_MAX_OPEN (default 1,000) open records of each kind, one user BINTEL_FEEDBACK_MAX_OPEN_PER_USER (default ${CONFIG_DEFAULTS.records.feedbackMaxOpenPerUser}): 429 QUOTA_EXCEEDED beyond, until an operator resolves some.`;
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
  const listing = pagedParameters('Records', { properties: { status: { type: 'string', enum: [...FEEDBACK_STATUSES] } }, about: { status: 'Only records in this state.' } });
  const idem = 'Idempotency-Key: a repeat with the same body answers the first record (200, meta.idempotency_reused); with another body 409.';
  const ops: Operation[] = [
    { method: 'post', path: '/v1/reports', tag: 'feedback', summary: 'File a bug report (201)', description: `Live root keys, or keys and tokens holding feedback:write (test keys 403; child keys never hold it). ${idem} ${capped}`, access: writes, body: { schema: reportBody, example: { endpoint: 'GET /v1/companies', request_id: 'req_01HZX', message: 'Page 3 repeats a row of page 2', payload: { query: 'states=TX&page=3' } } }, success: { data: report, created: true }, errors: [...BODY, 409] },
    { method: 'get', path: '/v1/reports', tag: 'feedback', summary: 'The reports the caller filed, newest first', access: reads, parameters: listing, success: { data: array(report), meta: ref('ListMeta') }, errors: [400] },
    { method: 'get', path: '/v1/reports/{id}', tag: 'feedback', summary: 'One report the caller filed, with its status', access: reads, parameters: [pathParameter('id', 'The report id (rpt_…).', { type: 'string', pattern: feedbackIdPattern('report') })], success: { data: report }, errors: [404] },
  ];
  for (const path of FLAG_PATHS) {
    const alias = path === '/v1/data-flags' ? ' (alias of /v1/review-flags)' : '';
    ops.push(
      { method: 'post', path, tag: 'feedback', summary: `Flag a field value of a row for review (201)${alias}`, description: `Live root keys, or keys and tokens holding feedback:write (test keys 403; child keys never hold it). ${idem} ${capped}`, access: writes, body: { schema: flagBody, example: { entity_type: 'companies', entity_id: 'cmp_0001', field: 'website', issue: 'The site moved', suggested_value: 'https://northwind.example' } }, success: { data: flag, created: true }, errors: [...BODY, 409] },
      { method: 'get', path, tag: 'feedback', summary: `The flags the caller filed, newest first${alias}`, access: reads, parameters: listing, success: { data: array(flag), meta: ref('ListMeta') }, errors: [400] },
      { method: 'get', path: `${path}/{id}`, tag: 'feedback', summary: `One flag the caller filed, with its status${alias}`, access: reads, parameters: [pathParameter('id', 'The flag id (flg_…).', { type: 'string', pattern: feedbackIdPattern('flag') })], success: { data: flag }, errors: [404] },
    );
  }
  return ops;
}

/** The operations that accept an Idempotency-Key header (each reads it with `idempotencyKeyOf`, before the body). */
const IDEMPOTENCY_KEY_OPERATIONS: readonly string[] = ['POST /v1/exports', 'POST /v1/writing-jobs', 'POST /v1/reports', ...FLAG_PATHS.map((p) => `POST ${p}`)];

const IDEMPOTENCY_KEY_PARAMETER: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  description: 'A repeat with the same key answers the first result and charges nothing. 1 to 255 printable ASCII characters; otherwise 400 idempotency-key/invalid_format.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** The operation with the Idempotency-Key header among its parameters, when it accepts one. */
const withIdempotencyKey = (op: Operation): Operation => (IDEMPOTENCY_KEY_OPERATIONS.includes(operationKey(op)) ? { ...op, parameters: [...(op.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER] } : op);

/** Every operation the server registers, in document order. */
export function operations(): Operation[] {
  return [...publicOperations(), ...accountOperations(), ...filterOptionOperations(), ...lookupOperations(), ...ENTITIES.flatMap(resourceOperations), ...exportJobOperations(), ...lookalikeOperations(), ...feedbackOperations(), ...tagOperations(), ...writingResourceOperations(), ...writingJobOperations()].map(withIdempotencyKey);
}
