/**
 * Bearer authentication and authorization helpers. Auth is one Redis read; the key's state
 * decides: active passes, revoked and rotated-out secrets get 401 at once, everywhere.
 */
import type { Context, Next } from 'koa';
import type { Services } from '../context.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { looksLikeSecret } from '../services/keys.ts';
import { LIVE_ONLY_SCOPES } from '../scopes.ts';

export interface AuthState {
  key: KeyRecord;
  /** Elasticsearch namespace this key reads (sandbox for test keys). */
  dataNamespace: string;
  sandbox: boolean;
}

export function authenticate(services: Services) {
  return async function authMiddleware(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw unauthorized('missing_credentials', 'Send Authorization: Bearer <API key>');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m || !looksLikeSecret(m[1])) throw unauthorized('malformed_credentials', 'Authorization must be "Bearer bk_live_…" or "Bearer bk_test_…"');
    const key = await services.keys.authenticate(m[1]);
    if (!key) throw unauthorized('invalid_credentials', 'Unknown API key');
    if (key.status === 'revoked') throw unauthorized('revoked_key', 'This API key has been revoked');
    if (key.status === 'rotated') throw unauthorized('rotated_key', 'This secret was rotated; use the new secret');
    const state: AuthState = { key, dataNamespace: services.dataNamespace(key.key_type), sandbox: key.key_type === 'test' };
    ctx.state.auth = state;
    await next();
  };
}

/** The authenticated key of a request (after `authenticate`). */
export function authOf(ctx: Context): AuthState {
  return ctx.state.auth as AuthState;
}

/** 403 unless the key holds `scope`; test keys never pass live-only scopes. */
export function requireScope(ctx: Context, scope: string): KeyRecord {
  const { key } = authOf(ctx);
  if (key.key_type === 'test' && LIVE_ONLY_SCOPES.includes(scope)) {
    throw forbidden(`Test keys cannot use ${scope.split(':')[0]} ${scope.endsWith(':read') ? 'reads' : 'writes'}; use a live key`, 'authorization', 'test_key_not_allowed');
  }
  if (!key.scopes.includes(scope)) throw forbidden(`This key lacks the ${scope} scope`, 'authorization', 'missing_scope');
  return key;
}

/** Middleware form of requireScope. */
export const scope = (s: string) =>
  async function scopeMiddleware(ctx: Context, next: Next): Promise<void> {
    requireScope(ctx, s);
    await next();
  };
