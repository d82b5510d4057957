/**
 * Who the caller is and what it may call: the authenticated caller's state (set by the auth
 * middleware, server/middleware/auth.ts), the access rule a route declares (server/routes/route.ts
 * enforces it before the handler runs; the OpenAPI document shows it) and the scope check, also for
 * code below the routes that has the key but not the request (job kinds, the lookalike type).
 * Imports nothing above it: read/, jobs/, writing/ and services/ may import it.
 */
import type { Context } from 'koa';
import { forbidden } from './errors.ts';
import type { KeyRecord } from './services/keys.ts';
import type { CrmContext } from './services/crm.ts';
import { LIVE_ONLY_SCOPES } from './scopes.ts';

export interface AuthState {
  key: KeyRecord;
  /** Elasticsearch namespace this key reads (sandbox for test keys). */
  dataNamespace: string;
  sandbox: boolean;
  /** A HEAD request: it runs the GET (same status and headers) but delivers no rows, so it charges nothing. */
  headOnly: boolean;
  /**
   * The key's organization's CRM context, read in the authentication's Redis round trip for a
   * route that reads rows (read/decorate.ts `callerContext` uses it instead of a round trip of its
   * own); absent otherwise.
   */
  crm?: Promise<CrmContext | null>;
}

/**
 * Who may call a route: nobody needs a key, any key, any live key, or a key holding a scope.
 * `root`: a root API key may, whatever its scopes (child keys and tokens need the scope).
 * `live` names the call in the 403 a test key gets before anything else is checked ("Test keys
 * cannot use <live>").
 */
export type Access = { kind: 'public' } | { kind: 'key' } | { kind: 'live'; live: string } | { kind: 'scope'; scope: string; root?: true; live?: string };

/** The authenticated caller of a request (after the auth middleware). */
export function authOf(ctx: Context): AuthState {
  return ctx.state.auth as AuthState;
}

/** `key` when it is live (403 test_key_not_allowed for a test key), whatever its scopes: `what` names the call. */
export function assertLive(key: KeyRecord, what: string): KeyRecord {
  if (key.key_type === 'test') throw forbidden(`Test keys cannot use ${what}; use a live key`, 'authorization', 'test_key_not_allowed');
  return key;
}

/** `key` when it holds `scope`: 403 missing_scope otherwise; test keys never pass live-only scopes. */
export function assertScope(key: KeyRecord, scope: string): KeyRecord {
  if (key.key_type === 'test' && LIVE_ONLY_SCOPES.includes(scope)) {
    throw forbidden(`Test keys cannot use ${scope.split(':')[0]} ${scope.endsWith(':read') ? 'reads' : 'writes'}; use a live key`, 'authorization', 'test_key_not_allowed');
  }
  if (!key.scopes.includes(scope)) throw forbidden(`This key lacks the ${scope} scope`, 'authorization', 'missing_scope');
  return key;
}

/** The caller's key when `access` lets it call (403 otherwise); null for a public route. */
export function enforce(access: Access, auth: AuthState | undefined): KeyRecord | null {
  if (access.kind === 'public') return null;
  const { key } = auth as AuthState;
  if (access.kind === 'key') return key;
  if (access.live !== undefined) assertLive(key, access.live);
  if (access.kind === 'live') return key;
  return access.root && key.parent_id === null ? key : assertScope(key, access.scope);
}
