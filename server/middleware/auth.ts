/**
 * Bearer authentication and the per-user rate limit (the caller's state it sets, and the access
 * checks, are server/access.ts). The key's state
 * decides: active passes, revoked and rotated-out secrets get 401 at once, everywhere. The
 * request is counted in the one-minute window of the key's user (services/rate.ts: every key
 * and token of one user shares it), in the same round trip as the authentication for a
 * credential this process has seen; a refused credential's request is given back. Every
 * authenticated response carries the IETF RateLimit-* headers; over the limit, 429 with
 * Retry-After.
 */
import type { Context, Next } from 'koa';
import { looksLikeJwt } from '../services/jwt.ts';
import type { Services } from '../context.ts';
import { ApiError, unauthorized } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { hashSecret, looksLikeSecret } from '../services/keys.ts';
import type { Counted } from '../services/rate.ts';
import type { AuthState } from '../access.ts';
import type { CrmContext } from '../services/crm.ts';

/**
 * The auth middleware. `readsRows(ctx)`: the request's route reads rows, whose query needs the
 * organization's CRM context: it is read in the authentication's round trip (AuthState `crm`)
 * when the credential's organization is known then (a key seen before, a verified token).
 */
export function authenticate(services: Services, readsRows: (ctx: Context) => boolean = () => false) {
  const limit = services.config.rateLimitPerMinute;
  const policy = `${limit};w=${services.rate.windowMs / 1000}`;
  return async function authMiddleware(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw unauthorized('missing_credentials', 'Send Authorization: Bearer <API key>');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m || !(looksLikeSecret(m[1]) || looksLikeJwt(m[1]))) throw unauthorized('malformed_credentials', 'Authorization must be "Bearer bk_live_…", "Bearer bk_test_…" or "Bearer <JWT>"');
    const crm = readsRows(ctx) ? (org: string) => quiet(services.crm.context(org)) : null;
    const { key, counted, crmOf } = looksLikeJwt(m[1]) ? await tokenOf(services, m[1], crm) : await keyOf(services, m[1], crm);
    const { count, resetMs } = counted;
    const reset = String(Math.max(1, Math.ceil(resetMs / 1000)));
    const headers = { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(Math.max(0, limit - count)), 'RateLimit-Reset': reset, 'RateLimit-Policy': policy };
    if (count > limit) {
      throw new ApiError('RATE_LIMITED', `Rate limit of ${limit} requests per minute reached; retry in ${reset} s`, [{ field: 'authorization', issue: 'rate_limited' }]).withHeaders({ ...headers, 'Retry-After': reset });
    }
    ctx.set(headers);
    const state: AuthState = { key, dataNamespace: services.dataNamespace(key.key_type), sandbox: key.key_type === 'test', headOnly: ctx.method === 'HEAD' };
    // Read for the organization the key belongs to (a secret's organization never changes).
    if (crmOf && crmOf.org === key.org) state.crm = crmOf.context;
    ctx.state.auth = state;
    await next();
  };
}

/** The CRM context of an organization, read in the authentication's round trip. */
type CrmRead = (org: string) => Promise<CrmContext | null>;

/** What authenticating a credential found: its key, its request counted, and the CRM context read beside (see authenticate). */
interface Authenticated {
  key: KeyRecord;
  counted: Counted;
  crmOf?: { org: string; context: Promise<CrmContext | null> };
}

/** A read started now and maybe never awaited (the request refused first): its failure is not unhandled; whoever awaits it still gets it. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** A JWT's key, verified in this step, and its request counted with its revocation check (given back when revoked). */
async function tokenOf(services: Services, token: string, crm: CrmRead | null): Promise<Authenticated> {
  const { key, iat } = await services.jwt.verify(token);
  const crmOf = crm ? { org: key.org, context: crm(key.org) } : undefined;
  const [revoked, counted] = await Promise.all([services.keys.tokenRevoked(key.id.slice(4), { org: key.org, user: key.user, iat }), services.rate.countFor(`jwt:${key.id}`, key)]);
  if (revoked) {
    await counted.giveBack();
    throw unauthorized('revoked_token', 'This token has been revoked');
  }
  return { key, counted, crmOf };
}

/** An API key's record by its secret, and its request counted; a refused secret's count is given back and forgotten. */
async function keyOf(services: Services, secret: string, crm: CrmRead | null): Promise<Authenticated> {
  const h = hashSecret(secret);
  const org = crm ? services.rate.orgOf(h) : null;
  const crmOf = crm && org !== null ? { org, context: crm(org) } : undefined;
  const [key, early] = await Promise.all([services.keys.authenticateHash(h), services.rate.countKnown(h)]);
  if (!key || key.status !== 'active') {
    await early?.giveBack();
    services.rate.forget(h);
    if (!key) throw unauthorized('invalid_credentials', 'Unknown API key');
    if (key.status === 'revoked') throw unauthorized('revoked_key', 'This API key has been revoked');
    throw unauthorized('rotated_key', 'This secret was rotated; use the new secret');
  }
  return { key, counted: early ?? (await services.rate.countFor(h, key)), crmOf };
}
