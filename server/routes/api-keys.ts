/**
 * The API key endpoints: list with usage (keys:read), create a child key, revoke and rotate
 * (keys:write). A key sees and manages only what it may manage (KeyService.mayManage): itself
 * and the child keys of its user; any other key answers as an unknown id. Secrets are returned
 * only at creation and rotation. POST /v1/tokens/revoke revokes JWTs of the caller's user.
 */
import { utcDay } from '../../core/clock.ts';
import Router from '@koa/router';
import type { Services } from '../context.ts';
import { ok } from '../middleware/envelope.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { requireScope } from '../middleware/auth.ts';
import { toCredits } from '../pricing.ts';
import { KEY_TYPES, publicKey, type KeyRecord, type KeyType } from '../services/keys.ts';
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

export function apiKeyRoutes(services: Services): Router {
  const r = new Router();

  const withUsage = async (k: KeyRecord) => {
    const [u, today] = await Promise.all([services.credits.usage(k.org, k.id), k.budget ? services.credits.spentOn(k.org, k.id, utcDay()) : 0]);
    return { ...publicKey(k), credits_used: toCredits(u.credits_milli), rows_returned: u.rows, queries: u.queries, cache_hits: u.cache_hits, budget: budgetView(k, u.credits_milli, today) };
  };

  r.get('/v1/api-keys', async (ctx) => {
    const key = requireScope(ctx, 'keys:read');
    const keys = await services.keys.listManaged(key);
    const data = await Promise.all(keys.map(withUsage));
    ok(ctx, data, { total_count: data.length, returned: data.length });
  });

  r.post('/v1/api-keys', async (ctx) => {
    const key = requireScope(ctx, 'keys:write');
    const body = createBody(bodyOf(ctx));
    const created = await services.keys.createChild(key, body);
    ok(ctx, { ...created.key, secret: created.secret }, {}, 201);
  });

  const target = async (ctx: Parameters<Parameters<Router['delete']>[1]>[0]) => {
    const key = requireScope(ctx, 'keys:write');
    return services.keys.getManaged(key, ctx.params.key_id);
  };

  r.delete('/v1/api-keys/:key_id', async (ctx) => {
    const rec = await target(ctx);
    ok(ctx, publicKey(await services.keys.revoke(rec)));
  });

  r.post('/v1/api-keys/:key_id/rotate', async (ctx) => {
    const rec = await target(ctx);
    const rotated = await services.keys.rotate(rec);
    ok(ctx, { ...rotated.key, secret: rotated.secret });
  });

  r.post('/v1/tokens/revoke', async (ctx) => {
    const key = requireScope(ctx, 'keys:write');
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
  });

  return r;
}

