/**
 * The person a call counts against. Crawl detection, the daily row cap and the rate window are
 * kept per person, not per credential: every key of one user of an organization (its root keys,
 * the child keys they made, whether live or test) and every JWT whose `sub` is that user share
 * one count, so more keys (or revoking and making them again) never give more pages, rows or
 * requests. Usage statistics and a child key's credit budget stay per key.
 *
 * Every key record names its user (`bintel keys create --user`; a child copies its root's; a
 * JWT's `sub`). A record without one (none is issued today) counts as its root key: a child
 * key with its parent, anything else alone.
 */
import type { KeyRecord } from './keys.ts';

/** The name of a person's counts, inside the organization's Redis slot: `u:<user, base64url>`, or `k:<root key id>`. */
export function personOf(key: Pick<KeyRecord, 'id' | 'user' | 'parent_id'>): string {
  if (key.user) return `u:${Buffer.from(key.user).toString('base64url')}`;
  return `k:${key.parent_id?.startsWith('key_') ? key.parent_id : key.id}`;
}
