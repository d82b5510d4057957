/**
 * What writing resolution reads for one caller (resolve.ts `WritingRefs`): saved identities of
 * the caller's organization, the caller's own plays, CTAs and subjects, the user's temperature and
 * account details. Anything unknown, deleted, another organization's or another user's personal
 * record reads as null.
 */
import type { Services } from '../context.ts';
import type { KeyRecord } from '../services/keys.ts';
import type { WritingRefs } from './resolve.ts';
import { publicRecord } from './store.ts';
import { getTemperature } from './temperature.ts';

export type Profile = Partial<Record<'full_name' | 'email' | 'signature' | 'title' | 'company_name', string>>;

/** Sets a user's account details (undefined: kept; empty: removed) and returns them all. */
export async function setProfile(services: Services, who: { org: string; user: string }, fields: { [K in keyof Profile]?: string | undefined }): Promise<Profile> {
  const entries = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  const set = entries.filter(([, v]) => v !== '');
  const cleared = entries.filter(([, v]) => v === '').map(([k]) => k);
  return (await services.writingSettings.updateProfile(who, Object.fromEntries(set), cleared)) as Profile;
}

export function refsFor(services: Services, key: KeyRecord): WritingRefs {
  return {
    identity: async (id) => {
      const rec = await services.writing.get(key.org, 'identity', id, key.user);
      if (!rec) return null;
      const { id: _i, created_at: _c, updated_at: _u, ...identity } = publicRecord(rec);
      return identity;
    },
    play: (id) => services.writing.get(key.org, 'play', id, key.user) as ReturnType<WritingRefs['play']>,
    cta: (id) => services.writing.get(key.org, 'cta', id, key.user) as ReturnType<WritingRefs['cta']>,
    subject: (id) => services.writing.get(key.org, 'subject', id, key.user) as ReturnType<WritingRefs['subject']>,
    temperature: async () => {
      const t = await getTemperature(services, key);
      return { effective: t.effective_temperature, source: t.temperature_source };
    },
    globalTemperature: services.config.writingTemperature,
    profile: async () => {
      const p = (await services.writingSettings.profile(key)) as Profile;
      return { full_name: p.full_name ?? null, email: p.email ?? (key.user.includes('@') ? key.user : null), signature: p.signature ?? null, title: p.title ?? null, company_name: p.company_name ?? null };
    },
  };
}
