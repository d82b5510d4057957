/**
 * Scopes and what each key type may do.
 */
import { ENTITY_NAMES } from '../mappings/index.ts';

export const DATA_READ_SCOPES: readonly string[] = Object.freeze(ENTITY_NAMES.map((e) => `read:${e}`));
export const ALL_SCOPES: readonly string[] = Object.freeze([
  ...DATA_READ_SCOPES,
  'tags:read',
  'tags:write',
  'keys:read',
  'keys:write',
  'usage:read',
  'writing:read',
  'writing:write',
  'writing:generate',
  // Bug reports and review flags (POST/GET /v1/reports, /v1/review-flags, /v1/data-flags): held
  // by root keys (and tokens) that are given them, never by child keys (data-read scopes only).
  'feedback:read',
  'feedback:write',
]);

/** Scopes a test (sandbox) key can never use, whatever it holds. */
export const LIVE_ONLY_SCOPES: readonly string[] = Object.freeze(['tags:write', 'keys:read', 'keys:write', 'usage:read', 'writing:read', 'writing:write', 'writing:generate', 'feedback:read', 'feedback:write']);

/**
 * Scopes that once existed and gate nothing: accepted where scopes are given (keys, JWT scope
 * claims) so tokens and scripts naming them keep working, and dropped. `credits:read` never gated
 * `GET /v1/credits`, which every live key of the organization may read (the spec names no scope).
 */
export const RETIRED_SCOPES: readonly string[] = Object.freeze(['credits:read']);
/** The scopes given, retired ones dropped. */
export const withoutRetired = (scopes: readonly string[]): string[] => scopes.filter((s) => !RETIRED_SCOPES.includes(s));

export const isDataReadScope = (s: string) => DATA_READ_SCOPES.includes(s);
export const isKnownScope = (s: string) => ALL_SCOPES.includes(s);
