/**
 * The tag endpoints (tags:read for reads, tags:write for writes; test keys are refused writes
 * by the scope check, server/access.ts). Every tag belongs to the calling key's user (`${org}/${user}`); all calls
 * cost 0 credits. Bodies and query strings are validated before any I/O: unknown members are
 * 400 unknown_field, `resource` is accepted as an alias of `entity_type`.
 */
import type { Context } from 'koa';
import { ok } from '../middleware/envelope.ts';
import { authOf } from '../access.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { ref } from '../openapi/schemas.ts';
import { pathParameter } from '../openapi/params.ts';
import { BODY, array, idParam } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';
import { ApiError, invalid, notFound, type ErrorDetail } from '../errors.ts';
import { bodyOf, validator } from '../validate.ts';
import { BULK_MAX, scopeOf, type TagOwner, type TagPage, type TagRecord } from '../services/tags.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import { listMeta, pageParams, throwProblems } from '../read/request.ts';
import type { EntityName } from '../../mappings/types.ts';

const ENTITY_TYPE = { type: 'string', enum: [...ENTITY_NAMES] };
const ENTITY_ID = { type: 'string', minLength: 1, maxLength: 512 };
// Emptiness and length of a tag are judged after normalization (service), not on the raw text.
const TAG = { type: 'string' };
const STR = { type: 'string' };

interface TypeAlias {
  entity_type?: EntityName;
  resource?: EntityName;
}
interface PairBody extends TypeAlias {
  entity_id: string;
  tag: string;
}
interface BulkBody extends TypeAlias {
  entity_ids: string[];
  tag: string;
}
interface ListQuery extends TypeAlias {
  tag?: string;
  tag_id?: string;
  page?: string;
  page_size?: string;
}

/** The body of POST and DELETE /v1/tags (validated here, published in the OpenAPI document). */
export const PAIR_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['entity_id', 'tag'],
  properties: { entity_id: ENTITY_ID, entity_type: ENTITY_TYPE, resource: ENTITY_TYPE, tag: TAG },
};
const pairBody = validator<PairBody>(PAIR_BODY_SCHEMA);

/** The body of POST /v1/tags/bulk (validated here, published in the OpenAPI document). */
export const BULK_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['entity_ids', 'tag'],
  properties: { entity_ids: { type: 'array', minItems: 1, maxItems: BULK_MAX, items: ENTITY_ID }, entity_type: ENTITY_TYPE, resource: ENTITY_TYPE, tag: TAG },
};
const bulkBody = validator<BulkBody>(BULK_BODY_SCHEMA);

/** The query of GET /v1/tags (its properties are the parameters) (validated here, published in the OpenAPI document). */
export const TAG_LIST_QUERY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { tag: STR, entity_type: ENTITY_TYPE, resource: ENTITY_TYPE, page: STR, page_size: STR },
};

/** The query of GET /v1/tags/entities (its properties are the parameters) (validated here, published in the OpenAPI document). */
export const TAG_ENTITIES_QUERY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { tag: STR, tag_id: STR, entity_type: ENTITY_TYPE, resource: ENTITY_TYPE, page: STR, page_size: STR },
};

/** No query parameter at all (ajv: each one is unknown_field). */
const NO_QUERY = { schema: { type: 'object', additionalProperties: false, properties: {} }, about: {}, validate: true } as const;

/** Runs every check, then throws one VALIDATION_ERROR carrying all of their details. */
function checkAll<T extends unknown[]>(...checks: { [K in keyof T]: () => T[K] }): T {
  const details: ErrorDetail[] = [];
  const out = checks.map((check) => {
    try {
      return check();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') return void details.push(...err.details);
      throw err;
    }
  });
  if (details.length) throw invalid(details);
  return out as T;
}

/** entity_type or its alias resource; both given must agree. */
function entityTypeOf(src: TypeAlias, required: boolean): EntityName | undefined {
  const { entity_type: a, resource: b } = src;
  if (a !== undefined && b !== undefined && a !== b) throw invalid({ field: 'resource', issue: 'conflicting_values', expected: `the same value as entity_type ("${a}"), or only one of them` });
  const type = a ?? b;
  if (required && type === undefined) throw invalid({ field: 'entity_type', issue: 'missing_required', expected: [...ENTITY_NAMES] });
  return type;
}

/** page and page_size, read as on every paged endpoint. */
const pagingOf = (q: ListQuery) => () => {
  const problems: ErrorDetail[] = [];
  const paging = pageParams(q, problems);
  throwProblems(problems);
  return paging;
};

/** Records in GET /v1/tags lists name their id `tag_id` (spec). */
const listed = ({ id, ...rest }: TagRecord) => ({ tag_id: id, ...rest });

function sendPage(ctx: Context, res: TagPage, page: number, pageSize: number): void {
  const returned = res.records.length;
  ok(ctx, res.records.map(listed), listMeta(page, pageSize, returned, res.total));
}

/** The caller's tags as their owner (writes). */
const ownerOf = (ctx: Context): TagOwner => {
  const { key, dataNamespace } = authOf(ctx);
  return { scope: scopeOf(key), org: key.org, userId: key.user, dataNamespace };
};
/** The caller's tag scope (reads). */
const readerOf = (ctx: Context): string => scopeOf(authOf(ctx).key);

const read = scope('tags:read');
const write = scope('tags:write');
const TAG_RECORD = ref('TagRecord');

/** The tag routes. */
export function tagRoutes(): Route[] {
  const pair = { schema: PAIR_BODY_SCHEMA, example: { entity_type: 'companies', entity_id: 'cmp_0001', tag: 'q3-outreach' } };
  const about = { tag: 'A tag name.', tag_id: 'One of your tag ids.', entity_type: 'A resource.', resource: 'Alias of entity_type.' };
  const tagCaps = `One user (on one side) holds at most BINTEL_TAGS_MAX_PER_USER (default ${CONFIG_DEFAULTS.records.tagsMaxPerUser.toLocaleString('en-US')}) tag records, an organization BINTEL_TAGS_MAX_PER_ORG (default ${CONFIG_DEFAULTS.records.tagsMaxPerOrg.toLocaleString('en-US')}): 429 QUOTA_EXCEEDED beyond (details[0].expected: {limit, current, per}), nothing written.`;
  return [
    /**
     * Adds one tag. Idempotent: 201 Created with the new record when this call tagged the
     * entity, 200 with the existing record (same id) when it was already tagged. Unknown entity
     * ids are 400 invalid_reference and nothing is written.
     */
    route({
      method: 'post', path: '/v1/tags', tag: 'tags', summary: 'Tag an entity (201 created, 200 already tagged)', description: tagCaps, access: write, body: pair, success: { data: TAG_RECORD, created: true }, errors: BODY,
      handle: async ({ ctx, services }) => {
        const owner = ownerOf(ctx);
        const body = pairBody(bodyOf(ctx));
        const [type, tag] = checkAll(() => entityTypeOf(body, true) as EntityName, () => services.tags.normalize(body.tag));
        const { record, created } = await services.tags.add(owner, type, body.entity_id, tag);
        ok(ctx, record, {}, created ? 201 : 200);
      },
    }),
    /** Removes the (entity, tag) pair; data is the removed record. 404 when the caller has no such tag. */
    route({
      method: 'delete', path: '/v1/tags', tag: 'tags', summary: 'Remove a tag from an entity', access: write, body: pair, success: { data: TAG_RECORD }, errors: [...BODY, 404],
      handle: async ({ ctx, services }) => {
        const { scope: owner } = ownerOf(ctx);
        const body = pairBody(bodyOf(ctx));
        const [type, tag] = checkAll(() => entityTypeOf(body, true) as EntityName, () => services.tags.normalize(body.tag));
        ok(ctx, { ...(await services.tags.remove(owner, type, body.entity_id, tag)), deleted: true });
      },
    }),
    /**
     * One tag on up to 100 entities, all or nothing. data: {created, matched, tags}. 201 when at
     * least one record was created, 200 when every entity already had the tag.
     */
    route({
      method: 'post', path: '/v1/tags/bulk', tag: 'tags', summary: 'One tag on up to 100 entities', description: `All or nothing. ${tagCaps}`, access: write,
      body: { schema: BULK_BODY_SCHEMA, example: { entity_type: 'companies', entity_ids: ['cmp_0001', 'cmp_0002'], tag: 'q3-outreach' } }, success: { data: { type: 'object', properties: { created: { type: 'integer' }, matched: { type: 'integer' }, tags: array(TAG_RECORD) } }, created: true }, errors: BODY,
      handle: async ({ ctx, services }) => {
        const owner = ownerOf(ctx);
        const body = bulkBody(bodyOf(ctx));
        const [type, tag] = checkAll(() => entityTypeOf(body, true) as EntityName, () => services.tags.normalize(body.tag));
        const res = await services.tags.addMany(owner, type, body.entity_ids, tag);
        ok(ctx, res, {}, res.created > 0 ? 201 : 200);
      },
    }),
    /** The caller's records, newest first; filters tag and entity_type (alias resource). */
    route({
      method: 'get', path: '/v1/tags', tag: 'tags', summary: "The caller's tags, newest first", access: read, query: { schema: TAG_LIST_QUERY_SCHEMA, about, validate: true }, success: { data: array(TAG_RECORD), meta: ref('ListMeta') }, errors: [400],
      handle: async ({ ctx, services, query }) => {
        const scope = readerOf(ctx);
        const q = query() as ListQuery;
        const [entityType, tag, { page, pageSize }] = checkAll(
          () => entityTypeOf(q, false),
          () => (q.tag === undefined ? undefined : services.tags.normalize(q.tag)),
          pagingOf(q),
        );
        sendPage(ctx, await services.tags.list(scope, { tag, entityType, page, pageSize }), page, pageSize);
      },
    }),
    /** Records of the entities sharing a tag, named by `tag` or by one of the caller's `tag_id`s. */
    route({
      method: 'get', path: '/v1/tags/entities', tag: 'tags', summary: 'Tag records of the entities sharing a tag', access: read, query: { schema: TAG_ENTITIES_QUERY_SCHEMA, about, validate: true }, success: { data: array(TAG_RECORD), meta: ref('ListMeta') }, errors: [400, 404],
      handle: async ({ ctx, services, query }) => {
        const scope = readerOf(ctx);
        const q = query() as ListQuery;
        const [entityType, tag, { page, pageSize }] = checkAll(
          () => entityTypeOf(q, false),
          () => {
            if (q.tag === undefined && q.tag_id === undefined) throw invalid({ field: 'tag', issue: 'missing_required', expected: 'tag or tag_id' });
            return q.tag === undefined ? undefined : services.tags.normalize(q.tag);
          },
          pagingOf(q),
        );
        sendPage(ctx, await services.tags.entitiesSharing(scope, { tag, tagId: q.tag_id }, { entityType, page, pageSize }), page, pageSize);
      },
    }),
    /** Removes a record by id; another user's id is 404 like an unknown one. */
    // (Not /v1/tags/bulk or /v1/tags/entities: those paths have their own methods, and Allow must say so.)
    route({
      method: 'delete', path: '/v1/tags/{tag_id}', match: /^\/v1\/tags\/(?!(?:bulk|entities)$)[^/]+$/, tag: 'tags', summary: 'Remove a tag record by id', access: write,
      params: [pathParameter('tag_id', 'The tag id.')], success: { data: TAG_RECORD }, errors: [404],
      handle: async ({ ctx, services }) => {
        const { scope: owner } = ownerOf(ctx);
        let id: string;
        try {
          id = decodeURIComponent(ctx.path.slice('/v1/tags/'.length));
        } catch {
          id = '';
        }
        ok(ctx, { ...(await services.tags.removeById(owner, id)), deleted: true });
      },
    }),
  ];
}

/**
 * The caller's records on one entity, newest first (an array; empty when untagged). Explicit
 * paths per entity: an unknown resource matches no route and stays a 404.
 */
export const entityTagsRoute = (def: EntityDef): Route =>
  route({
    method: 'get', path: `/v1/${def.name}/{id}/tags`, tag: 'tags', summary: `The caller's tags on one ${def.label}`, access: read, params: [idParam(def)], query: NO_QUERY, success: { data: array(TAG_RECORD) }, errors: [400, 404],
    handle: async ({ ctx, services, query }) => {
      const scope = readerOf(ctx);
      query();
      // An id that names no record is a 404, as on the record's own path.
      const [records, found] = await Promise.all([services.tags.tagsOf(scope, def.name as EntityName, ctx.params.id), services.tags.exists(authOf(ctx).dataNamespace, def.name as EntityName, ctx.params.id)]);
      if (!found) throw notFound(def.label, 'id');
      ok(ctx, records, { returned: records.length });
    },
  });
