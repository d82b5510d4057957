/**
 * The API key endpoints: list with usage (keys:read), create a child key, revoke and rotate
 * (keys:write). A key sees and manages only what it may manage (KeyService.mayManage): itself
 * and the child keys of its user; any other key answers as an unknown id. Secrets are returned
 * only at creation and rotation. POST /v1/tokens/revoke revokes JWTs of the caller's user.
 */
import { utcDay } from '../../core/clock.ts';
import type { Services } from '../context.ts';
import type { Context } from 'koa';
import { ok } from '../middleware/envelope.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { authOf } from '../access.ts';
import { CONFIG_DEFAULTS } from '../../core/config.ts';
import { ref } from '../openapi/schemas.ts';
import { pathParameter } from '../openapi/params.ts';
import { BODY, array } from '../openapi/shapes.ts';
import { route, scope, type Route } from './route.ts';
import { toCredits } from '../pricing.ts';
import { KEY_ID_PATTERN, KEY_TYPES, publicKey, type KeyRecord, type KeyType } from '../services/keys.ts';
import { ALL_SCOPES } from '../scopes.ts';
import { bodyOf, validator } from '../validate.ts';
import type { Tier } from '../../mappings/types.ts';

interface CreateBody {
  scopes: string[];
  name?: string;
  key_type?: KeyType;
  field_tier?: Tier;
  budget?: { total?: number; daily?: number };
}

/** The body of POST /v1/api-keys (validated here, published in the OpenAPI document). */
export const CREATE_KEY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['scopes'],
  properties: {
    scopes: { type: 'array', minItems: 1, maxItems: ALL_SCOPES.length, items: { type: 'string', minLength: 1 } },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    key_type: { type: 'string', enum: [...KEY_TYPES] },
    field_tier: { type: 'string', enum: ['basic', 'advanced'] },
    budget: {
      type: 'object',
      additionalProperties: false,
      description: 'Credits the child key may spend from the pool: in all and/or per UTC day. Over it: 402 key_budget_exhausted.',
      properties: { total: { type: 'number', minimum: 0 }, daily: { type: 'number', minimum: 0 } },
    },
  },
};

const createBody = validator<CreateBody>(CREATE_KEY_SCHEMA);

/** The body of POST /v1/tokens/revoke: one token, or every token of the caller's user. */
export const REVOKE_TOKENS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Exactly one of token and all.',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 16_384, description: "A JWT of the caller's user: revoked until its exp." },
    all: { type: 'boolean', const: true, description: "Every JWT of the caller's user issued until now (by iat; one without iat too)." },
  },
};

const revokeTokensBody = validator<{ token?: string; all?: true }>(REVOKE_TOKENS_SCHEMA);

/** A key's budget with what is left of it (credits), or null when it has none. */
export function budgetView(k: KeyRecord, spentMilli: number, spentTodayMilli: number): Record<string, number | null> | null {
  const b = k.budget;
  if (!b) return null;
  return {
    total: b.total_milli === null ? null : toCredits(b.total_milli),
    total_remaining: b.total_milli === null ? null : toCredits(Math.max(0, b.total_milli - spentMilli)),
    daily: b.daily_milli === null ? null : toCredits(b.daily_milli),
    daily_remaining: b.daily_milli === null ? null : toCredits(Math.max(0, b.daily_milli - spentTodayMilli)),
  };
}

/** A key with its usage and budget, as GET /v1/api-keys lists it. */
async function withUsage(services: Services, k: KeyRecord) {
  const [u, today] = await Promise.all([services.credits.usage(k.org, k.id), k.budget ? services.credits.spentOn(k.org, k.id, utcDay()) : 0]);
  return { ...publicKey(k), credits_used: toCredits(u.credits_milli), rows_returned: u.rows, queries: u.queries, cache_hits: u.cache_hits, budget: budgetView(k, u.credits_milli, today) };
}

/** The key of the path, when the caller may manage it (404 otherwise). */
const target = (services: Services, ctx: Context) => services.keys.getManaged(authOf(ctx).key, ctx.params.key_id);

export function apiKeyRoutes(): Route[] {
  const keyId = pathParameter('key_id', 'The key id (key_…).', { type: 'string', pattern: KEY_ID_PATTERN });
  return [
    route({
      method: 'get', path: '/v1/api-keys', tag: 'api-keys', summary: 'The keys the caller may manage, with usage', description: 'A root key lists itself and every child key of its user; a child key itself. Revoked keys are listed until their purge (BINTEL_REVOKED_KEY_RETENTION_S, default 30 days).', access: scope('keys:read'),
      success: { data: array(ref('ApiKeyWithUsage')) },
      handle: async ({ ctx, services }) => {
        const keys = await services.keys.listManaged(authOf(ctx).key);
        const data = await Promise.all(keys.map((k) => withUsage(services, k)));
        ok(ctx, data, { total_count: data.length, returned: data.length });
      },
    }),
    route({
      method: 'post', path: '/v1/api-keys', tag: 'api-keys', summary: 'Create a child key (root key); the secret is shown once', description: `A user has at most BINTEL_MAX_CHILD_KEYS (default ${CONFIG_DEFAULTS.maxChildKeys}) active child keys, whichever of its root keys made them; an organization at most BINTEL_MAX_ORG_KEYS (default ${CONFIG_DEFAULTS.maxOrgKeys}) active keys; a user creates at most BINTEL_MAX_KEY_CREATIONS_PER_DAY (default ${CONFIG_DEFAULTS.maxKeyCreationsPerDay}) child keys per UTC day, revoked ones included. Beyond any: 429 QUOTA_EXCEEDED with the limit in details[].expected.`, access: scope('keys:write'),
      body: { schema: CREATE_KEY_SCHEMA, example: { scopes: ['read:companies'], name: 'reporting', field_tier: 'basic' } }, success: { data: ref('ApiKeyWithSecret'), created: true }, errors: BODY,
      handle: async ({ ctx, services }) => {
        const body = createBody(bodyOf(ctx));
        const created = await services.keys.createChild(authOf(ctx).key, body);
        ok(ctx, { ...created.key, secret: created.secret }, {}, 201);
      },
    }),
    route({
      method: 'delete', path: '/v1/api-keys/{key_id}', tag: 'api-keys', summary: 'Revoke a key: every secret it ever had fails at once; a root key revokes its child keys with it', description: 'A key revokes itself; a root key also any child key of its user. Any other key (another user\'s, an internal one) is 404 as an unknown id.', access: scope('keys:write'),
      params: [keyId], success: { data: ref('ApiKey') }, errors: [404],
      handle: async ({ ctx, services }) => {
        const rec = await target(services, ctx);
        ok(ctx, publicKey(await services.keys.revoke(rec)));
      },
    }),
    route({
      method: 'post', path: '/v1/api-keys/{key_id}/rotate', tag: 'api-keys', summary: 'Rotate a key: a new secret, the old one fails at once', description: 'A key rotates itself; a root key also any child key of its user; any other key is 404 as an unknown id. A compare-and-set on the current secret: of two concurrent rotations one answers 200 and the other 409 (concurrent_change); a revoked key answers 409 (revoked).', access: scope('keys:write'),
      params: [keyId], success: { data: ref('ApiKeyWithSecret') }, errors: [404, 409],
      handle: async ({ ctx, services }) => {
        const rotated = await services.keys.rotate(await target(services, ctx));
        ok(ctx, { ...rotated.key, secret: rotated.secret });
      },
    }),
    route({
      method: 'post', path: '/v1/tokens/revoke', tag: 'api-keys', summary: "Revoke JWTs of the caller's user: one token until its exp, or every token issued until now", description: "Body: `token` (a JWT of the caller's organization and user; another user's token is 404 as an unknown one; the revocation lasts until the token's exp, also for a token not valid yet) or `all: true` (every JWT of the caller's user whose iat is at or before this second, and every one without iat, is refused from now on; tokens issued later are accepted).", access: scope('keys:write'),
      body: { schema: REVOKE_TOKENS_SCHEMA, example: { all: true } }, success: { data: { type: 'object', properties: { jti: { type: 'string' }, revoked_until: { type: 'string', format: 'date-time' }, user: { type: 'string' }, revoked_before: { type: 'string', format: 'date-time' } } } }, errors: [...BODY, 404],
      handle: async ({ ctx, services }) => {
        const { key } = authOf(ctx);
        const body = revokeTokensBody(bodyOf(ctx));
        if ((body.token === undefined) === (body.all === undefined)) throw invalid({ field: 'body', issue: 'one_of', expected: ['token', 'all'] }, 'Give exactly one of token and all');
        if (body.all) {
          const before = await services.keys.revokeUserTokens(key.org, key.user);
          ok(ctx, { user: key.user, revoked_before: new Date((before + 1) * 1000).toISOString() });
          return;
        }
        const token = await services.jwt.inspect(body.token as string).catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 401) throw invalid({ field: 'token', issue: 'invalid_value' }, `token: ${err.message}`);
          throw err;
        });
        // Another user's token is as unknown as another user's key.
        if (token.key.org !== key.org || token.key.user !== key.user) throw notFound('Token', 'token');
        await services.keys.revokeToken(token.key.id.slice(4), token.exp);
        ok(ctx, { jti: token.key.id.slice(4), revoked_until: new Date(token.exp * 1000).toISOString() });
      },
    }),
  ];
}
