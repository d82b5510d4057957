/**
 * The OpenAPI 3.1 document, assembled at start from the operation table (operations.ts), the
 * parameter allowlists (params.ts), the ajv body schemas the routes validate with, the entity
 * definitions and the error catalogue (schemas.ts). Nothing here is a hand-kept copy.
 */
import { ALL_SCOPES } from '../scopes.ts';
import { operationKey, operations, type Access, type Operation } from './operations.ts';
import type { Schema } from './params.ts';
import { componentSchemas, envelopeOf, errorResponses } from './schemas.ts';
import { exampleOf } from './examples.ts';

import { API_VERSION } from '../version.ts';

export { API_VERSION };

/** Statuses every keyed call may answer with: credentials, scope, rate limit, internal, unavailable. */
const KEYED_ERRORS = [401, 403, 429, 500, 503];

const security = (access: Access) => {
  if (access.kind === 'public') return [];
  return [{ bearerAuth: access.kind === 'scope' ? [access.scope] : [] }];
};

const accessText = (access: Access): string =>
  ({ public: 'No key needed.', key: 'Any key (test keys read sandbox data).', live: 'Any live key.', scope: access.kind === 'scope' ? `Scope \`${access.scope}\`${access.root ? ', or a root API key whatever its scopes' : ''}.` : '' })[access.kind];

/** `getCompaniesById`, `postApiKeysByKeyIdRotate`. */
function operationId(op: Operation): string {
  const words = op.path
    .replace(/^\/v1\//, '')
    .split(/[/.-]/)
    .filter(Boolean)
    .map((w) => (w.startsWith('{') ? `By_${w.slice(1, -1)}` : w))
    .flatMap((w) => w.split('_'));
  return op.method + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

/** The success response of an operation, by media type, with an example made from its schema. */
function successResponses(op: Operation, refs: Record<string, Schema>): Record<string, Schema> {
  const { media, data, meta, created, accepted, gzip, notModified } = op.success;
  const gzipped = gzip ? { 'application/gzip': { schema: { type: 'string', contentEncoding: 'gzip' } } } : {};
  if (media === 'text/csv') return { '200': { description: `CSV, one row per record (HEAD: the headers only)${gzip ? '; gzipped when the export asked for it' : ''}.`, content: { 'text/csv': { schema: { type: 'string' } }, ...gzipped } } };
  if (media === 'text/html') return { '200': { description: 'The Swagger UI page.', content: { 'text/html': { schema: { type: 'string' } } } } };
  if (media === 'asset') return { '200': { description: 'The file (JavaScript, CSS or an image).', content: { '*/*': { schema: { type: 'string' } } } } };
  if (media === 'application/json') return { '200': { description: 'The OpenAPI 3.1 document (not in the envelope).', content: { 'application/json': { schema: { type: 'object' } } } } };
  const schema = envelopeOf(data ?? { type: 'object' }, meta);
  const body = { description: 'Success, in the envelope.', content: { 'application/json': { schema, example: exampleOf(schema, refs) } } };
  if (accepted) return { '200': { ...body, description: 'Already so (an Idempotency-Key repeat: the original job), or a dry run.' }, '202': { ...body, description: 'Accepted: the job is queued (Location names it).' } };
  if (notModified) return { '200': body, '304': { description: 'Not modified: If-None-Match holds the current ETag (no body).' } };
  return created ? { '200': { ...body, description: 'Already so: the existing record.' }, '201': { ...body, description: 'Created.' } } : { '200': body };
}

/** One Operation Object. */
function operationObject(op: Operation, refs: Record<string, Schema>): Schema {
  // A path parameter that is not valid percent-encoding is refused with 400 before the route runs.
  const pathErrors = op.path.includes('{') ? [400] : [];
  const errors = [...new Set([...(op.access.kind === 'public' ? [] : KEYED_ERRORS), ...pathErrors, ...(op.errors ?? [])])].sort((a, b) => a - b);
  return {
    operationId: operationId(op),
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, accessText(op.access)].filter(Boolean).join('\n\n'),
    security: security(op.access),
    ...(op.parameters?.length ? { parameters: op.parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: op.body.schema, example: op.body.example } } } } : {}),
    responses: { ...successResponses(op, refs), ...Object.fromEntries(errors.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }])) },
  };
}

const TAGS: Record<string, string> = {
  account: 'Health, the calling key and credits.',
  docs: 'This document and the interactive documentation.',
  'api-keys': 'Child keys, revocation and rotation.',
  'filter-options': 'The values filters accept; free.',
  tags: "Per-user tags on records; free.",
};

/** Options of `openApiDocument`. */
export interface DocumentOptions {
  /** Operations to add (tests; the autocomplete branch adds its own to the table instead). */
  extra?: Operation[];
}

/** The OpenAPI 3.1 document of every operation in the table. */
export function openApiDocument(opts: DocumentOptions = {}): Schema {
  const ops = [...operations(), ...(opts.extra ?? [])];
  const paths: Record<string, Record<string, Schema>> = {};
  const seen = new Set<string>();
  const schemas = componentSchemas();
  for (const op of ops) {
    if (seen.has(operationKey(op))) throw new Error(`OpenAPI: ${operationKey(op)} is in the table twice`);
    seen.add(operationKey(op));
    (paths[op.path] ??= {})[op.method] = operationObject(op, schemas);
  }
  const tagNames = [...new Set(ops.map((o) => o.tag))];
  const statuses = [...new Set(Object.values(paths).flatMap((p) => Object.values(p).flatMap((o) => Object.keys(o.responses as Schema))))].map(Number).filter((s) => s >= 400);
  return {
    openapi: '3.1.0',
    info: {
      title: 'bintel benefits-intelligence data API',
      version: API_VERSION,
      description: 'Companies, personnel, broker offices and brokers from Form 5500 filings. Every response is an envelope: `{ok: true, data, meta}` or `{ok: false, error: {code, message, details, request_id}, meta: {credits_charged: 0}}`. Generated at start from the definitions the server validates with. What changed, and when: the dated changelog at [/v1/changelog](/v1/changelog).',
      'x-changelog': '/v1/changelog',
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: tagNames.map((name) => ({ name, description: TAGS[name] ?? `The ${name} resource: list, detail, CSV export, and lookups or batches where it has them.` })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: `An API key (bk_live_..., bk_test_...) or a JWT (when the operator configures BINTEL_JWT_*; claims sub, org, scope, tier, key_type, exp, jti) as a Bearer token. Scopes: ${ALL_SCOPES.join(', ')}; each operation lists the one it needs.` },
      },
      schemas,
      responses: errorResponses(statuses),
    },
  };
}

let shared: Schema | undefined;

/**
 * The document of the operation table, built once per process: the docs route serves it and
 * the tests' response checker validates against it, so starting many servers builds it once.
 */
export function sharedDocument(): Schema {
  shared ??= openApiDocument();
  return shared;
}
