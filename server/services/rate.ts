/**
 * The rate window of a person (server/services/person.ts): fixed windows of `windowMs`, one
 * counter per person and window in the organization's Redis slot, so a user's root keys, child
 * keys and JWTs draw on one limit (BINTEL_RATE_LIMIT_PER_MIN) however many there are.
 *
 * Whose a credential is never changes (a key's user and organization are fixed when it is made;
 * a token's are its claims), so each process remembers it by the credential's hash: a credential
 * seen before is counted in the same tick as its authentication (one auto-pipelined round trip);
 * a new one after it. A request whose credential then turns out refused (revoked, rotated) is
 * given back and forgotten, so a revoked key cannot spend its user's window.
 */
import { defineScript, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import type { KeyRecord } from './keys.ts';
import { personOf } from './person.ts';

/** Credentials remembered per process. */
const KNOWN_MAX = 10_000;

/** KEYS: the window's counter. ARGV: the window in ms. The count with this request. */
const COUNT = defineScript<number, [windowMs: number]>({
  name: 'rate:count',
  keys: 1,
  lua: `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return n
`,
});

/** KEYS: the window's counter. Takes one request back, unless the window is gone (a counter is never left without its expiry). */
const GIVE_BACK = defineScript<number, []>({
  name: 'rate:give-back',
  keys: 1,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`,
});

/** A request's place in its person's window. */
export interface Counted {
  /** Requests of the person in the window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
  /** Gives the request back (its credential was refused). */
  giveBack: () => Promise<void>;
}

export class RateWindows {
  /** Whose each credential is (by hash), as first seen. */
  private readonly known = new Map<string, { org: string; person: string }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    readonly windowMs = 60_000,
  ) {}

  /** The count of a credential seen before (its person known), or null: start it in the same tick as authentication. */
  countKnown(credential: string, now = Date.now()): Promise<Counted> | null {
    const who = this.known.get(credential);
    return who ? this.count(who, now) : null;
  }

  /** The organization of a credential seen before (it never changes), or null. */
  orgOf(credential: string): string | null {
    return this.known.get(credential)?.org ?? null;
  }

  /** Counts a request of `key`'s person and remembers whose `credential` is. */
  countFor(credential: string, key: Pick<KeyRecord, 'id' | 'org' | 'user' | 'parent_id'>, now = Date.now()): Promise<Counted> {
    const who = { org: key.org, person: personOf(key) };
    if (!this.known.has(credential)) {
      if (this.known.size >= KNOWN_MAX) this.known.delete(this.known.keys().next().value as string);
      this.known.set(credential, who);
    }
    return this.count(who, now);
  }

  /** Forgets a refused credential (its next request is counted only once it is accepted). */
  forget(credential: string): void {
    this.known.delete(credential);
  }

  private async count(who: { org: string; person: string }, now: number): Promise<Counted> {
    const window = Math.floor(now / this.windowMs);
    const key = this.keys.personRate(who.org, who.person, window);
    const count = Number(await COUNT.run(this.redis, [key], [this.windowMs]));
    return {
      count,
      resetMs: (window + 1) * this.windowMs - now,
      giveBack: async () => {
        // The refusal the caller is about to get matters more than a count given back.
        await GIVE_BACK.run(this.redis, [key], []).catch(() => 0);
      },
    };
  }
}
