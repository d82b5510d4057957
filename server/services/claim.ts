/**
 * Idempotency-Key claims, one rule for every endpoint that takes the header (async exports,
 * writing jobs, reports, flags). A claim is scoped to (organization, user, kind, key) and holds
 * `<id>|<fingerprint>`; the fingerprint covers the kind, the calling key's id and the canonical
 * body, so a repeat by another key, or with another body, never receives the first record.
 *
 * - same key, same fingerprint: the original record (200, `meta.idempotency_reused: true`),
 *   nothing charged, nothing run twice;
 * - same key, another fingerprint: 409 CONFLICT `idempotency-key`/`conflicting_values`.
 *
 * The claim is taken inside the script that creates the record (CLAIM_LUA is a fragment of that
 * script), so a claim never names a record that does not exist and two concurrent twins can
 * never both create one.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';

/**
 * A claim lives as long as the record it names (a retry while the record exists answers it):
 * the kind's record TTL in seconds, or KEPT for records kept until deleted (reports, flags).
 */
export const KEPT = 0;

/** JSON with object keys sorted at every level: two spellings of one body have one form. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The fingerprint of a request: its kind, the calling key and the canonical body. */
export const fingerprintOf = (kind: string, keyId: string, body: unknown): string => createHash('sha256').update(`${kind}\n${keyId}\n${canonicalJson(body)}`).digest('base64url').slice(0, 32);

/**
 * The claim step of a creating script. KEYS[k] is the claim; ARGV[a] the new record's id,
 * ARGV[a+1] the fingerprint, ARGV[a+2] the claim's TTL in seconds (KEPT: none; '' when the request has no key). When
 * the key already names a record the script returns {5, id, fingerprint} of that record and
 * writes nothing; else it goes on, and `claim()` (called once the record is written) takes the key.
 */
export const claimLua = (k: number, a: number): string => `
local function claim()
  if ARGV[${a + 2}] == '' then return end
  local ttl = tonumber(ARGV[${a + 2}])
  if ttl > 0 then redis.call('SET', KEYS[${k}], ARGV[${a}] .. '|' .. ARGV[${a + 1}], 'EX', ttl)
  else redis.call('SET', KEYS[${k}], ARGV[${a}] .. '|' .. ARGV[${a + 1}]) end
end
if ARGV[${a + 2}] ~= '' then
  local earlier = redis.call('GET', KEYS[${k}])
  if earlier then
    local sep = string.find(earlier, '|', 1, true)
    return {5, string.sub(earlier, 1, sep - 1), string.sub(earlier, sep + 1)}
  end
end
`;

/** The script's answer when the key was already claimed: code 5. */
export const CLAIMED = 5;

/** 409 for a key used with another body (or by another key). */
export const conflictingClaim = (): ApiError =>
  new ApiError('CONFLICT', 'This Idempotency-Key was used with another body; use a new key for a new request', [{ field: 'idempotency-key', issue: 'conflicting_values', expected: 'a new key for a new body' }]);
