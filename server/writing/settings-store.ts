/**
 * A user's writing settings in Redis, by the user's scope (services/tags.ts `scopeOf`: a test
 * key's are its own): the personal-play temperature override (temperature.ts) and the account
 * details writing signs with (refs.ts `Profile`).
 */
import type { RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { scopeOf } from '../services/tags.ts';

/** Whose settings: a key (or anything naming its organization and user, and its type when a test key). */
export type SettingsOwner = { org: string; user: string; key_type?: string };

export class WritingSettingsStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** The user's temperature override, or null. */
  async temperature(who: SettingsOwner): Promise<number | null> {
    const raw = await this.redis.get(this.keys.writingTemperature(scopeOf(who)));
    return raw === null ? null : Number(raw);
  }

  /** Sets the user's temperature override (null clears it). */
  async setTemperature(who: SettingsOwner, value: number | null): Promise<void> {
    const k = this.keys.writingTemperature(scopeOf(who));
    if (value === null) await this.redis.del(k);
    else await this.redis.set(k, String(value));
  }

  /** The user's account details, field by field (none: empty). */
  profile(who: SettingsOwner): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.userProfile(scopeOf(who)));
  }

  /** Sets `set` and removes `cleared` of the user's account details; returns them all. */
  async updateProfile(who: SettingsOwner, set: Record<string, string>, cleared: readonly string[]): Promise<Record<string, string>> {
    const key = this.keys.userProfile(scopeOf(who));
    if (Object.keys(set).length) await this.redis.hset(key, set);
    if (cleared.length) await this.redis.hdel(key, ...cleared);
    return this.redis.hgetall(key);
  }
}
