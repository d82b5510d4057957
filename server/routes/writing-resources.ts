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
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { requireScope } from '../middleware/auth.ts';
import { ApiError, forbidden, invalid, notFound, quotaExceeded } from '../errors.ts';
import { bodyOf, validator } from '../validate.ts';
import { listMeta, pageParams, readQuery, one, throwProblems } from '../read/request.ts';
import type { ErrorDetail } from '../errors.ts';
import { IDENTITY_OPTION_FIELDS, IDENTITY_SCHEMA, identityChoices, mergePatch, replacesArray, type OptionWarning } from '../writing/identity.ts';
import { publicRecord, type RecordCap, type RecordKind, type StoredRecord } from '../writing/store.ts';
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

const listQuery = (ctx: Context) => {
  const q = readQuery(ctx, ['page', 'page_size', 'search']);
  const problems: ErrorDetail[] = [];
  const { page, pageSize } = pageParams(q, problems);
  const search = one(q, 'search');
  if (search !== undefined && !search.trim()) problems.push({ field: 'search', issue: 'empty' });
  if (search !== undefined && [...search].length > SEARCH_MAX) problems.push({ field: 'search', issue: 'too_long', expected: `at most ${SEARCH_MAX} characters` });
  throwProblems(problems);
  return { page, pageSize, search: search?.trim() || undefined };
};


export function writingResourceRoutes(services: Services): Router {
  const r = new Router();
  const store = services.writing;
  const caps = services.config.records;
  const capOf = (kind: RecordKind): RecordCap => (kind === 'identity' ? { perUser: caps.identitiesMaxPerUser, perOrg: caps.identitiesMaxPerOrg } : { perUser: caps.writingMaxPerUser, perOrg: caps.writingMaxPerOrg });
  /** Creates `key`'s records, or 429 naming `field` when a cap refuses them (nothing written). */
  const create = async (key: KeyRecord, kind: RecordKind, items: Obj[], field: string, what: string): Promise<StoredRecord[]> => {
    const made = await store.create(key.org, kind, items, key.user, capOf(kind));
    if ('capped' in made) throw quotaExceeded(field, what, made.limit, made.current, made.capped);
    return made.records;
  };

  for (const k of PLAIN_KINDS) {
    const createBody = validator<Obj>(createSchema(k));
    const patch = validator<Obj>(patchSchema(k));
    const what = `saved ${k.label === 'CTA' ? 'CTAs' : `${k.label.toLowerCase()}s`}`;
    const bulk = k.bulk ? validator<Obj>(bulkSchema(k)) : null;
    const defaults = (o: Obj): Obj => (k.kind === 'play' ? { source: 'manual', ...o } : o);
    const base = `/v1/${k.path}`;

    r.get(base, async (ctx: Context) => {
      const key = requireScope(ctx, 'writing:read');
      const { page, pageSize, search } = listQuery(ctx);
      const { items, total } = await store.list(key.org, k.kind, key.user, { from: page * pageSize, size: pageSize, search, searchable: Object.keys(k.fields) });
      ok(ctx, items.map(publicRecord), listMeta(page, pageSize, items.length, total));
    });

    r.post(base, async (ctx: Context) => {
      const key = requireScope(ctx, 'writing:write');
      noIfMatch(ctx, `a new ${k.label} has no ETag`);
      const body = bodyOf(ctx);
      if (bulk && body && typeof body === 'object' && !Array.isArray(body) && k.bulk! in body) {
        const rows = (bulk(body)[k.bulk!] as Obj[]).map(defaults);
        const made = await create(key, k.kind, rows, k.bulk!, what);
        ok(ctx, made.map(publicRecord), { bulk: true, created: made.length }, 201);
        return;
      }
      const [made] = await create(key, k.kind, [defaults(createBody(body))], k.path, what);
      ctx.set('Location', `${base}/${made.id}`);
      ok(ctx, publicRecord(made), {}, 201);
    });

    const id = (ctx: Context) => ctx.params.id as string;
    r.get(`${base}/:id`, async (ctx: Context) => {
      const key = requireScope(ctx, 'writing:read');
      const rec = await store.get(key.org, k.kind, id(ctx), key.user);
      if (!rec) throw notFound(k.label);
      ok(ctx, publicRecord(rec));
    });

    r.patch(`${base}/:id`, async (ctx: Context) => {
      const key = requireScope(ctx, 'writing:write');
      noIfMatch(ctx, `${k.label} records carry no ETag`);
      const changes = patch(bodyOf(ctx));
      const rec = await store.update(key.org, k.kind, id(ctx), key.user, (cur) => ({ ...cur, ...changes }), null);
      if (!rec) throw notFound(k.label);
      ok(ctx, publicRecord(rec));
    });

    r.delete(`${base}/:id`, async (ctx: Context) => {
      const key = requireScope(ctx, 'writing:write');
      noIfMatch(ctx, `${k.label} records carry no ETag`);
      const rec = await store.update(key.org, k.kind, id(ctx), key.user, (cur) => cur, null, { delete: true });
      if (!rec) throw notFound(k.label);
      ok(ctx, { id: rec.id, deleted: true });
    });
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
  const sized = (identity: Obj): Obj => {
    const max = caps.identityMaxBytes;
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

  r.get('/v1/identities/schema', async (ctx: Context) => {
    requireScope(ctx, 'writing:read');
    ok(ctx, IDENTITY_SCHEMA);
  });

  r.get('/v1/identities', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:read');
    const { page, pageSize, search } = listQuery(ctx);
    const { items, total } = await store.list(key.org, 'identity', key.user, { from: page * pageSize, size: pageSize, search, searchable: ['companyName', 'versionName'] });
    ok(ctx, items.map((i) => ({ id: i.id, companyName: i.companyName, versionName: i.versionName ?? null, created_at: i.created_at, updated_at: i.updated_at })), listMeta(page, pageSize, items.length, total));
  });

  r.post('/v1/identities', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:write');
    noIfMatch(ctx, 'a new identity has no ETag yet');
    const [made] = await create(key, 'identity', [sized(identityBody(bodyOf(ctx)))], 'identities', 'identities');
    ctx.set('Location', `/v1/identities/${made.id}`);
    send(ctx, made, 201);
  });

  r.get('/v1/identities/:id', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:read');
    const rec = await store.get(key.org, 'identity', ctx.params.id as string, key.user);
    if (!rec) throw notFound('Identity');
    if (ctx.get('If-None-Match') === rec.etag) {
      ctx.set('ETag', rec.etag);
      ctx.status = 304;
      return;
    }
    send(ctx, rec);
  });

  /** A write of an identity: `next` computes the new identity from the current one. Array replacements need If-Match. */
  const writeIdentity = async (ctx: Context, replaces: boolean, next: (cur: Obj) => Obj) => {
    const key = requireScope(ctx, 'writing:write');
    const ifMatch = ifMatchOf(ctx);
    if (replaces && !ifMatch) {
      throw new ApiError('PRECONDITION_REQUIRED', 'This write replaces an array of the identity: send If-Match with the ETag you read', [{ field: 'if-match', issue: 'precondition_required', expected: 'the ETag of GET /v1/identities/{id}' }]);
    }
    const rec = await store.update(key.org, 'identity', ctx.params.id as string, key.user, (cur) => {
      const { id: _i, created_at: _c, updated_at: _u, etag: _e, created_by: by, ...fields } = owned(key, cur);
      return { ...sized(identityBody(next(fields))), created_by: by };
    }, ifMatch);
    if (!rec) throw notFound('Identity');
    send(ctx, rec);
  };

  r.put('/v1/identities/:id', async (ctx: Context) => {
    const body = identityBody(bodyOf(ctx));
    await writeIdentity(ctx, true, () => body);
  });

  r.patch('/v1/identities/:id', async (ctx: Context) => {
    const patchBody = identityPatch(bodyOf(ctx));
    await writeIdentity(ctx, replacesArray(patchBody), (cur) => mergePatch(cur, patchBody));
  });

  r.delete('/v1/identities/:id', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:write');
    const rec = await store.update(key.org, 'identity', ctx.params.id as string, key.user, (cur) => owned(key, cur), ifMatchOf(ctx), { delete: true });
    if (!rec) throw notFound('Identity');
    ok(ctx, { id: rec.id, deleted: true });
  });

  // ---- Temperature (per user) and options

  const temperatureBody = validator<{ temperature: number | null }>(TEMPERATURE_BODY_SCHEMA);
  r.get('/v1/writing/temperature', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:read');
    readQuery(ctx, []);
    ok(ctx, await getTemperature(services, key));
  });
  for (const method of ['post', 'patch'] as const) {
    r[method]('/v1/writing/temperature', async (ctx: Context) => {
      const key = requireScope(ctx, 'writing:write');
      ok(ctx, await setTemperature(services, key, temperatureBody(bodyOf(ctx)).temperature));
    });
  }

  r.get('/v1/writing/options', async (ctx: Context) => {
    const key = requireScope(ctx, 'writing:read');
    const q = readQuery(ctx, ['identity_id']);
    const identityId = one(q, 'identity_id');
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
  });

  return r;
}
