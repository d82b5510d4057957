/**
 * Saved writing resources (live keys; writing:read for reads, writing:write for writes; 0
 * credits): marketing identities with ETags, plays (with bulk create), CTAs and subjects, the
 * user's temperature, and writing options. Plays, CTAs and subjects are personal: their user's
 * alone (the spec's "personal plays"); identities are the organization's to read and use, and
 * their user's to change or delete (another user: 403). Another organization's id, and another
 * user's personal record, read as 404 here and as `invalid_reference` in a writing job, never
 * differently from an unknown id. Records are capped per user and per organization, each kind
 * apart (429 QUOTA_EXCEEDED), and an identity in bytes (413).
 */
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';
import { ref } from '../openapi/schemas.ts';
import { pathParameter, type Schema } from '../openapi/params.ts';
import { BODY, array, obj, pagedQuery } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';
import { ApiError, forbidden, invalid, notFound, quotaExceeded } from '../errors.ts';
import { bodyOf, validator } from '../validate.ts';
import { listMeta, pageParams, one, throwProblems, type RawQuery } from '../read/request.ts';
import type { ErrorDetail } from '../errors.ts';
import { IDENTITY_OPTION_FIELDS, IDENTITY_SCHEMA, identityChoices, mergePatch, replacesArray, type OptionWarning } from '../writing/identity.ts';
import { idPatternSource, publicRecord, type RecordCap, type RecordKind, type StoredRecord } from '../writing/store.ts';
import type { KeyRecord } from '../services/keys.ts';
import { getTemperature, setTemperature, TEMPERATURE_BODY_SCHEMA } from '../writing/temperature.ts';
import type { Obj } from '../writing/types.ts';

/** Most records of one bulk play create. */
export const PLAYS_BULK_MAX = 100;
const SEARCH_MAX = 200;

/** A plain saved resource: its path, kind and fields. */
interface PlainKind {
  kind: Exclude<RecordKind, 'identity'>;
  path: string;
  label: string;
  fields: Record<string, { type: 'string'; minLength?: number; maxLength: number; enum?: readonly string[]; description?: string }>;
  required: readonly string[];
  /** The body member holding many records at once (plays only). */
  bulk?: string;
}

export const PLAIN_KINDS: readonly PlainKind[] = [
  {
    kind: 'play',
    path: 'writing-plays',
    label: 'Play',
    fields: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      subject: { type: 'string', maxLength: 300, description: 'A subject for email jobs that use this play; {{first_name}}-style placeholders are filled.' },
      body: { type: 'string', minLength: 1, maxLength: 10_000, description: 'The message of the play; placeholders: {{first_name}}, {{company_name}}, {{title}}, {{industry}}, {{sender_name}}, {{our_company}}.' },
      source: { type: 'string', enum: ['manual', 'draft'], maxLength: 10, description: 'manual (default) or draft.' },
    },
    required: ['name', 'body'],
    bulk: 'plays',
  },
  { kind: 'cta', path: 'writing-ctas', label: 'CTA', fields: { name: { type: 'string', minLength: 1, maxLength: 200 }, body: { type: 'string', minLength: 1, maxLength: 1000 } }, required: ['name', 'body'] },
  { kind: 'subject', path: 'writing-subjects', label: 'Subject', fields: { name: { type: 'string', minLength: 1, maxLength: 200 }, text: { type: 'string', minLength: 1, maxLength: 300 } }, required: ['name', 'text'] },
];

/** The create body of a plain kind (also in the OpenAPI document). */
export const createSchema = (k: PlainKind) => ({ type: 'object', additionalProperties: false, required: [...k.required], properties: k.fields });
/** The PATCH body: the same members, none required, at least one. */
export const patchSchema = (k: PlainKind) => ({ type: 'object', additionalProperties: false, minProperties: 1, properties: k.fields });
/** The bulk create body (plays). */
export const bulkSchema = (k: PlainKind) => ({ type: 'object', additionalProperties: false, required: [k.bulk!], properties: { [k.bulk!]: { type: 'array', minItems: 1, maxItems: PLAYS_BULK_MAX, items: createSchema(k) } } });

/** An If-Match sent where no ETag exists: refused, rather than ignored. */
function noIfMatch(ctx: Context, where: string): void {
  if (ctx.get('If-Match')) throw invalid({ field: 'if-match', issue: 'not_supported', expected: `no If-Match: ${where}` });
}

/** The query of a list of saved records: paging and a search. */
const LISTING = pagedQuery('Records', { properties: { search: { type: 'string', minLength: 1, maxLength: SEARCH_MAX } }, about: { search: 'Case- and accent-insensitive text in the record.' } });

const listQuery = (q: RawQuery) => {
  const problems: ErrorDetail[] = [];
  const { page, pageSize } = pageParams(q, problems);
  const search = one(q, 'search');
  if (search !== undefined && !search.trim()) problems.push({ field: 'search', issue: 'empty' });
  if (search !== undefined && [...search].length > SEARCH_MAX) problems.push({ field: 'search', issue: 'too_long', expected: `at most ${SEARCH_MAX} characters` });
  throwProblems(problems);
  return { page, pageSize, search: search?.trim() || undefined };
};


const capOf = (services: Services, kind: RecordKind): RecordCap => {
  const caps = services.config.records;
  return kind === 'identity' ? { perUser: caps.identitiesMaxPerUser, perOrg: caps.identitiesMaxPerOrg } : { perUser: caps.writingMaxPerUser, perOrg: caps.writingMaxPerOrg };
};

/** Creates `key`'s records, or 429 naming `field` when a cap refuses them (nothing written). */
async function create(services: Services, key: KeyRecord, kind: RecordKind, items: Obj[], field: string, what: string): Promise<StoredRecord[]> {
  const made = await services.writing.create(key.org, kind, items, key.user, capOf(services, kind));
  if ('capped' in made) throw quotaExceeded(field, what, made.limit, made.current, made.capped);
  return made.records;
}

const read = scope('writing:read');
const write = scope('writing:write');
/** What every saved record carries. */
const META: Schema = { type: 'object', properties: { id: { type: 'string' }, created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' } } };
const DELETED: Schema = { type: 'object', properties: { id: { type: 'string' }, deleted: { const: true } } };

/** The list, create, read, change and delete of a plain kind (plays, CTAs, subjects). */
function plainKindRoutes(k: PlainKind): Route[] {
  const createBody = validator<Obj>(createSchema(k));
  const patch = validator<Obj>(patchSchema(k));
  const what = `saved ${k.label === 'CTA' ? 'CTAs' : `${k.label.toLowerCase()}s`}`;
  const bulk = k.bulk ? validator<Obj>(bulkSchema(k)) : null;
  const defaults = (o: Obj): Obj => (k.kind === 'play' ? { source: 'manual', ...o } : o);
  const base = `/v1/${k.path}`;
  const caps = CONFIG_DEFAULTS.records;
  const writingCaps = `Each kind: at most BINTEL_WRITING_MAX_PER_USER (default ${caps.writingMaxPerUser}) per user and BINTEL_WRITING_MAX_PER_ORG (default ${caps.writingMaxPerOrg.toLocaleString('en-US')}) per organization: 429 QUOTA_EXCEEDED beyond (details[0].expected: {limit, current, per}), nothing written.`;
  const record: Schema = { type: 'object', properties: { ...(META.properties as Record<string, Schema>), ...(createSchema(k).properties as Record<string, Schema>) } };
  const id = pathParameter('id', `The ${k.label} id.`, { type: 'string', pattern: idPatternSource(k.kind) });
  const sample = Object.fromEntries(Object.keys(k.fields).filter((f) => k.required.includes(f)).map((f) => [f, f === 'name' ? `My ${k.label}` : `The ${f} of the ${k.label}`]));
  const idOf = (ctx: Context) => ctx.params.id as string;
  return [
    route({
      method: 'get', path: base, tag: 'writing', summary: `The caller's ${k.label}s, newest first`, description: `${k.label}s are personal: another user's, even of the organization, never show (404 by id, invalid_reference in jobs).`, access: read,
      query: LISTING, success: { data: array(record), meta: ref('ListMeta') }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        const { page, pageSize, search } = listQuery(query());
        const { items, total } = await services.writing.list(key.org, k.kind, key.user, { from: page * pageSize, size: pageSize, search, searchable: Object.keys(k.fields) });
        ok(ctx, items.map(publicRecord), listMeta(page, pageSize, items.length, total));
      },
    }),
    route({
      method: 'post', path: base, tag: 'writing', summary: `Create a ${k.label}${k.bulk ? ` (or up to ${PLAYS_BULK_MAX} with \`${k.bulk}\`: an array, meta.bulk true, all or nothing)` : ''}`, description: writingCaps, access: write,
      body: { schema: k.bulk ? { oneOf: [createSchema(k), bulkSchema(k)] } : createSchema(k), example: sample }, success: { data: k.bulk ? { oneOf: [record, array(record)] } : record, created: true }, errors: BODY,
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        noIfMatch(ctx, `a new ${k.label} has no ETag`);
        const body = bodyOf(ctx);
        if (bulk && body && typeof body === 'object' && !Array.isArray(body) && k.bulk! in body) {
          const rows = (bulk(body)[k.bulk!] as Obj[]).map(defaults);
          const made = await create(services, key, k.kind, rows, k.bulk!, what);
          ok(ctx, made.map(publicRecord), { bulk: true, created: made.length }, 201);
          return;
        }
        const [made] = await create(services, key, k.kind, [defaults(createBody(body))], k.path, what);
        ctx.set('Location', `${base}/${made.id}`);
        ok(ctx, publicRecord(made), {}, 201);
      },
    }),
    route({
      method: 'get', path: `${base}/{id}`, tag: 'writing', summary: `One ${k.label}`, access: read, params: [id], success: { data: record }, errors: [404],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        const rec = await services.writing.get(key.org, k.kind, idOf(ctx), key.user);
        if (!rec) throw notFound(k.label);
        ok(ctx, publicRecord(rec));
      },
    }),
    route({
      method: 'patch', path: `${base}/{id}`, tag: 'writing', summary: `Change a ${k.label} (the members sent)`, access: write, params: [id],
      body: { schema: patchSchema(k), example: { name: `Renamed ${k.label}` } }, success: { data: record }, errors: [...BODY, 404],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        noIfMatch(ctx, `${k.label} records carry no ETag`);
        const changes = patch(bodyOf(ctx));
        const rec = await services.writing.update(key.org, k.kind, idOf(ctx), key.user, (cur) => ({ ...cur, ...changes }), null);
        if (!rec) throw notFound(k.label);
        ok(ctx, publicRecord(rec));
      },
    }),
    route({
      method: 'delete', path: `${base}/{id}`, tag: 'writing', summary: `Delete a ${k.label} (soft: gone from lists and jobs)`, access: write, params: [id], success: { data: DELETED }, errors: [404],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        noIfMatch(ctx, `${k.label} records carry no ETag`);
        const rec = await services.writing.update(key.org, k.kind, idOf(ctx), key.user, (cur) => cur, null, { delete: true });
        if (!rec) throw notFound(k.label);
        ok(ctx, { id: rec.id, deleted: true });
      },
    }),
  ];
}

// ---- Identities (ETags; array replacements need If-Match)

const identityBody = validator<Obj>(IDENTITY_SCHEMA);
const identityPatch = validator<Obj>({ ...IDENTITY_SCHEMA, required: [], minProperties: 1, properties: Object.fromEntries(Object.entries(IDENTITY_SCHEMA.properties).map(([n, s]) => [n, { oneOf: [s, { type: 'null' }] }])) });
const send = (ctx: Context, rec: StoredRecord, status = 200) => {
  ctx.set('ETag', rec.etag);
  ok(ctx, publicRecord(rec), {}, status);
};
const ifMatchOf = (ctx: Context): string | null => ctx.get('If-Match') || null;
/** An identity within BINTEL_IDENTITY_MAX_BYTES (413 otherwise, nothing written). */
const sized = (services: Services, identity: Obj): Obj => {
  const max = services.config.records.identityMaxBytes;
  if (Buffer.byteLength(JSON.stringify(identity)) > max) {
    throw new ApiError('PAYLOAD_TOO_LARGE', `An identity is at most ${max} bytes of JSON`, [{ field: 'body', issue: 'too_large', expected: `at most ${max} bytes of JSON` }]);
  }
  return identity;
};
/** Only the user who saved an identity changes or deletes it; the rest of the organization reads it. */
const owned = (key: KeyRecord, cur: StoredRecord): StoredRecord => {
  if (cur.created_by !== key.user) throw forbidden('Only the user who saved this identity may change or delete it', 'id', 'forbidden');
  return cur;
};

/** A write of an identity: `next` computes the new identity from the current one. Array replacements need If-Match. */
async function writeIdentity(services: Services, ctx: Context, replaces: boolean, next: (cur: Obj) => Obj): Promise<void> {
  const { key } = authOf(ctx);
  const ifMatch = ifMatchOf(ctx);
  if (replaces && !ifMatch) {
    throw new ApiError('PRECONDITION_REQUIRED', 'This write replaces an array of the identity: send If-Match with the ETag you read', [{ field: 'if-match', issue: 'precondition_required', expected: 'the ETag of GET /v1/identities/{id}' }]);
  }
  const rec = await services.writing.update(key.org, 'identity', ctx.params.id as string, key.user, (cur) => {
    const { id: _i, created_at: _c, updated_at: _u, etag: _e, created_by: by, ...fields } = owned(key, cur);
    return { ...sized(services, identityBody(next(fields))), created_by: by };
  }, ifMatch);
  if (!rec) throw notFound('Identity');
  send(ctx, rec);
}

function identityRoutes(): Route[] {
  const caps = CONFIG_DEFAULTS.records;
  const identityCaps = `At most BINTEL_IDENTITIES_MAX_PER_USER (default ${caps.identitiesMaxPerUser}) per user and BINTEL_IDENTITIES_MAX_PER_ORG (default ${caps.identitiesMaxPerOrg}) per organization (429 QUOTA_EXCEEDED), each at most BINTEL_IDENTITY_MAX_BYTES (default ${caps.identityMaxBytes.toLocaleString('en-US')}) bytes of JSON (413).`;
  const identity: Schema = { type: 'object', properties: { ...(META.properties as Record<string, Schema>), ...(IDENTITY_SCHEMA.properties as unknown as Record<string, Schema>) } };
  const idn = pathParameter('id', 'The identity id (idn_…).', { type: 'string', pattern: idPatternSource('identity') });
  const example = { companyName: 'Northwind Benefits', versionName: 'Q4', valueProps: [{ id: 'vp1', feature: 'Cut renewal costs by benchmarking every carrier quote' }], brandVoice: { avoid: ['synergy', 'em dash'] } };
  const etag = 'Reads carry a strong ETag; a write that replaces an array (PUT, or a PATCH holding an array) needs If-Match: 428 without it, 412 when stale, nothing applied either way.';
  return [
    route({
      method: 'get', path: '/v1/identities/schema', tag: 'writing', summary: 'The JSON Schema of a marketing identity', access: read, success: { data: obj },
      handle: ({ ctx }) => ok(ctx, IDENTITY_SCHEMA),
    }),
    route({
      method: 'get', path: '/v1/identities', tag: 'writing', summary: 'Identities of the organization (id, companyName, versionName)', description: 'Every user of the organization reads and uses them; only the user who saved one changes or deletes it (403 otherwise).', access: read,
      query: LISTING, success: { data: array(META), meta: ref('ListMeta') }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        const { page, pageSize, search } = listQuery(query());
        const { items, total } = await services.writing.list(key.org, 'identity', key.user, { from: page * pageSize, size: pageSize, search, searchable: ['companyName', 'versionName'] });
        ok(ctx, items.map((i) => ({ id: i.id, companyName: i.companyName, versionName: i.versionName ?? null, created_at: i.created_at, updated_at: i.updated_at })), listMeta(page, pageSize, items.length, total));
      },
    }),
    route({
      method: 'post', path: '/v1/identities', tag: 'writing', summary: 'Save a marketing identity', description: `Answers with its ETag. ${identityCaps}`, access: write,
      body: { schema: IDENTITY_SCHEMA as unknown as Schema, example }, success: { data: identity, created: true }, errors: BODY,
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        noIfMatch(ctx, 'a new identity has no ETag yet');
        const [made] = await create(services, key, 'identity', [sized(services, identityBody(bodyOf(ctx)))], 'identities', 'identities');
        ctx.set('Location', `/v1/identities/${made.id}`);
        send(ctx, made, 201);
      },
    }),
    route({
      method: 'get', path: '/v1/identities/{id}', tag: 'writing', summary: 'One identity, with its ETag', description: 'If-None-Match with the current ETag: 304.', access: read, params: [idn], success: { data: identity, notModified: true }, errors: [404],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        const rec = await services.writing.get(key.org, 'identity', ctx.params.id as string, key.user);
        if (!rec) throw notFound('Identity');
        if (ctx.get('If-None-Match') === rec.etag) {
          ctx.set('ETag', rec.etag);
          ctx.status = 304;
          return;
        }
        send(ctx, rec);
      },
    }),
    route({
      method: 'put', path: '/v1/identities/{id}', tag: 'writing', summary: 'Replace an identity (If-Match required)', description: `${etag} Only the user who saved it (403 otherwise); at most BINTEL_IDENTITY_MAX_BYTES (413).`, access: write, params: [idn],
      body: { schema: IDENTITY_SCHEMA as unknown as Schema, example }, success: { data: identity }, errors: [...BODY, 404, 412, 428],
      handle: async ({ ctx, services }) => {
        const body = identityBody(bodyOf(ctx));
        await writeIdentity(services, ctx, true, () => body);
      },
    }),
    route({
      method: 'patch', path: '/v1/identities/{id}', tag: 'writing', summary: 'Change an identity (JSON merge patch)', description: `${etag} Objects merge, arrays replace, null removes. Only the user who saved it (403 otherwise); the result at most BINTEL_IDENTITY_MAX_BYTES (413).`, access: write, params: [idn],
      body: { schema: obj, example: { versionName: 'Q1' } }, success: { data: identity }, errors: [...BODY, 404, 412, 428],
      handle: async ({ ctx, services }) => {
        const patchBody = identityPatch(bodyOf(ctx));
        await writeIdentity(services, ctx, replacesArray(patchBody), (cur) => mergePatch(cur, patchBody));
      },
    }),
    route({
      method: 'delete', path: '/v1/identities/{id}', tag: 'writing', summary: 'Delete an identity (soft)', description: 'Only the user who saved it (403 otherwise). If-Match is checked when sent.', access: write, params: [idn], success: { data: DELETED }, errors: [404, 412],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        const rec = await services.writing.update(key.org, 'identity', ctx.params.id as string, key.user, (cur) => owned(key, cur), ifMatchOf(ctx), { delete: true });
        if (!rec) throw notFound('Identity');
        ok(ctx, { id: rec.id, deleted: true });
      },
    }),
  ];
}

// ---- Temperature (per user) and options

const temperatureBody = validator<{ temperature: number | null }>(TEMPERATURE_BODY_SCHEMA);
const TEMPERATURE: Schema = { type: 'object', properties: { global_temperature: { type: 'number' }, personal_play_temperature_override: { oneOf: [{ type: 'number' }, { type: 'null' }] }, effective_temperature: { type: 'number' }, temperature_source: { type: 'string', enum: ['user', 'global'] } } };

/** POST and PATCH /v1/writing/temperature: the same write. */
const setTemperatureRoute = (method: 'post' | 'patch', summary: string, example: unknown): Route =>
  route({
    method, path: '/v1/writing/temperature', tag: 'writing', summary, access: write, body: { schema: TEMPERATURE_BODY_SCHEMA, example }, success: { data: TEMPERATURE }, errors: BODY,
    handle: async ({ ctx, services }) => ok(ctx, await setTemperature(services, authOf(ctx).key, temperatureBody(bodyOf(ctx)).temperature)),
  });

function settingRoutes(): Route[] {
  return [
    route({
      method: 'get', path: '/v1/writing/temperature', tag: 'writing', summary: "The caller's personal-play temperature", access: read, success: { data: TEMPERATURE },
      handle: async ({ ctx, services, query }) => {
        query();
        ok(ctx, await getTemperature(services, authOf(ctx).key));
      },
    }),
    setTemperatureRoute('post', 'Set (or, null, clear) the personal-play temperature', { temperature: 1.1 }),
    setTemperatureRoute('patch', 'Same as POST', { temperature: null }),
    route({
      method: 'get', path: '/v1/writing/options', tag: 'writing', summary: 'Saved plays, CTAs, subjects, channels and modes, and identity-derived choices', description: 'Without identity_id the identity-derived lists are empty and warnings hold IDENTITY_ID_REQUIRED with the fields; placeholders, incomplete case studies, repeated ids and quotes without a customer are left out, each an ITEM_EXCLUDED warning.', access: read,
      query: { schema: { properties: { identity_id: { type: 'string' } } }, about: { identity_id: 'A saved identity.' } }, success: { data: obj }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const { key } = authOf(ctx);
        const store = services.writing;
        const identityId = one(query(), 'identity_id');
        if (identityId !== undefined && !identityId) throw invalid({ field: 'identity_id', issue: 'empty' });
        const identity = identityId ? await store.get(key.org, 'identity', identityId, key.user) : null;
        if (identityId && !identity) throw invalid({ field: 'identity_id', issue: 'invalid_reference', expected: 'an identity of your organization' });
        const all = async (kind: Exclude<RecordKind, 'identity'>) => (await store.list(key.org, kind, key.user, { from: 0, size: 1000, searchable: [] })).items.map(publicRecord);
        const [plays, ctas, subjects] = await Promise.all([all('play'), all('cta'), all('subject')]);
        const warnings: OptionWarning[] = [];
        let derived: Record<string, unknown[]> = Object.fromEntries(IDENTITY_OPTION_FIELDS.map((f) => [f, []]));
        if (identity) {
          const c = identityChoices(identity);
          derived = c.choices;
          warnings.push(...c.warnings);
        } else {
          warnings.push({ code: 'IDENTITY_ID_REQUIRED', message: 'Send identity_id to get the choices derived from a saved identity', fields: [...IDENTITY_OPTION_FIELDS] });
        }
        ok(ctx, {
          identity: identity ? { id: identity.id, companyName: identity.companyName, versionName: identity.versionName ?? null } : null,
          plays,
          ctas,
          subjects,
          channels: ['email', 'linkedin'],
          linkedin_types: ['message', 'connection_request'],
          source_modes: ['saved', 'inline', 'hybrid'],
          play_sources: ['template', 'personal'],
          ...derived,
          warnings,
        });
      },
    }),
  ];
}

/** Saved writing resources, in document order: plays, CTAs and subjects, identities, temperature and options. */
export const writingResourceRoutes = (): Route[] => [...PLAIN_KINDS.flatMap(plainKindRoutes), ...identityRoutes(), ...settingRoutes()];
