/**
 * What the read side keeps in Redis between requests, none of it durable (state export leaves
 * all but the secret out): the remembered end of each served page (15 minutes: page N+1 then
 * starts with one search_after query), the count cache (keyed by the filters and the concrete
 * index, so an alias move invalidates it: a served index never changes, each load builds a new
 * one), the filter-option cache, and the cursor-signing secret every server of the namespace
 * shares.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Es } from '../../core/adapters/es.ts';
import { NotFoundError, ServiceUnavailableError } from '../../core/errors.ts';
import type { RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { indexBehind } from '../index-state.ts';

/** An Elasticsearch query (a clause of the query DSL). */
type CountQuery = Record<string, unknown>;

/** Seconds a remembered page end lives. */
const PAGE_END_TTL_S = 900;
/** Seconds a counted total lives, and the mark of a count under way (a count that dies leaves it at most this long). */
const COUNT_TTL_S = 3600;
const COUNT_PENDING_TTL_S = 60;
/**
 * Milliseconds this process trusts what it last read an alias to point at. A count asked within
 * that long after a load moved the alias is the previous index's exact count (a snapshot that
 * old); a count on an index deleted meanwhile reads the alias again.
 */
export const GENERATION_TTL_MS = 2000;

/** Elasticsearch's answer for an index that no longer exists. */
const isMissingIndex = (err: unknown): boolean => err instanceof NotFoundError && err.what === 'index';

export class ReadMemory {
  /** The concrete index behind each alias, as last read (one read in flight per alias). */
  private readonly generations = new Map<string, { index: Promise<string>; at: number }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly es: Es,
    private readonly log: Logger,
    /** How long an alias's concrete index is trusted (tests shorten or lengthen it). */
    private readonly generationTtlMs = GENERATION_TTL_MS,
  ) {}

  /** The remembered end of page `page` of the filter combination `fp` (a cursor, as `remember` stored it), or null. */
  async pageEnd<T>(fp: string, page: number): Promise<T | null> {
    const json = await this.redis.get(this.keys.cursor(fp, page));
    return json ? (JSON.parse(json) as T) : null;
  }

  /** Remembers where a served page ended; a failure only costs the next page its shortcut. */
  async remember(fp: string, page: number, end: unknown): Promise<void> {
    await this.redis.set(this.keys.cursor(fp, page), JSON.stringify(end), 'EX', PAGE_END_TTL_S).catch((err: Error) => this.log.warn({ err: err.message }, 'could not remember a page cursor'));
  }

  /**
   * The exact number of matches of `query` on the concrete index `generation` (`countKey`: the
   * filters in the caller's context) from the count cache; on a miss the count starts in the
   * background and null means pending.
   */
  async count(generation: string, query: CountQuery, countKey: string): Promise<number | null> {
    const key = this.countKey(generation, countKey);
    const cached = await this.redis.get(key);
    if (cached !== null && cached !== 'pending') return Number(cached);
    if (cached === null && (await this.redis.set(key, 'pending', 'EX', COUNT_PENDING_TTL_S, 'NX')) === 'OK') {
      this.es
        .count({ index: generation, query })
        .then((c) => this.redis.set(key, String(c.count), 'EX', COUNT_TTL_S))
        .catch((err: Error) => {
          this.log.warn({ err: err.message }, 'background count failed');
          // Clearing the mark lets the next call count again at once; left, it expires within 60 s.
          // Redis may be what failed: this handler must not reject in turn (nobody awaits it).
          return this.redis.del(key).catch((e: Error) => this.log.warn({ err: e.message }, 'background count: its pending mark not cleared'));
        });
    }
    return null;
  }

  /**
   * The exact number of matches of a list question on the index behind `alias` (`countKey`: the
   * filters in the caller's context, as for `count`): from the count cache, else counted now (on
   * the concrete index the key names) and cached. The cache is read at once; `query` (the built
   * query, which may wait on the caller's context) is awaited only to count.
   */
  async exactCount(alias: string, countKey: string, built: CountQuery | Promise<CountQuery>): Promise<number> {
    const query = Promise.resolve(built);
    // A cache hit never awaits the query: its failure is the caller's to report (it builds it), not an unhandled rejection here.
    query.catch(() => {});
    for (let attempt = 0; ; attempt++) {
      // Elasticsearch not answering fails the count at once (not once for the alias and again for the count).
      const generation = await this.generation(alias).catch((err: unknown) => {
        if (err instanceof ServiceUnavailableError) throw err;
        return null;
      });
      // No single index behind the alias: the count on the alias answers or fails as it always did.
      if (generation === null) return (await this.es.count({ index: alias, query: await query })).count;
      const key = this.countKey(generation, countKey);
      const cached = await this.redis.get(key);
      if (cached !== null && cached !== 'pending') return Number(cached);
      try {
        const { count } = await this.es.count({ index: generation, query: await query });
        await this.redis.set(key, String(count), 'EX', COUNT_TTL_S).catch((err: Error) => this.log.warn({ err: err.message }, 'could not cache a count'));
        return count;
      } catch (err) {
        // A load moved the alias and deleted the index this process last saw: read the alias again, once.
        if (attempt > 0 || !isMissingIndex(err)) throw err;
        this.generations.delete(alias);
      }
    }
  }

  /** The concrete index behind `alias` (read again after `generationTtlMs`, see GENERATION_TTL_MS); rejects when the alias does not exist. */
  generation(alias: string): Promise<string> {
    const known = this.generations.get(alias);
    if (known && Date.now() - known.at < this.generationTtlMs) return known.index;
    const index = indexBehind(this.es, alias);
    const entry = { index, at: Date.now() };
    this.generations.set(alias, entry);
    // A failed read is not remembered: the next call reads again.
    index.catch(() => this.generations.get(alias) === entry && this.generations.delete(alias));
    return index;
  }

  private countKey(generation: string, countKey: string): string {
    return this.keys.count(createHash('sha1').update(`${generation}|${countKey}`).digest('hex').slice(0, 24));
  }

  /** The cached filter options of `field` on the concrete `index`, or null. */
  async options<T>(index: string, field: string): Promise<T | null> {
    const hit = await this.redis.get(this.keys.filterOptions(index, field));
    return hit ? (JSON.parse(hit) as T) : null;
  }

  /** Caches the filter options of `field` on the concrete `index` for `ttlS` seconds. */
  async rememberOptions(index: string, field: string, options: unknown, ttlS: number): Promise<void> {
    await this.redis.set(this.keys.filterOptions(index, field), JSON.stringify(options), 'EX', ttlS);
  }

  /** The namespace's cursor-signing secret (hex): created once (SET NX), then read by every server. */
  async cursorSecret(): Promise<string> {
    const key = this.keys.cursorSecret();
    await this.redis.set(key, randomBytes(32).toString('hex'), 'NX');
    const hex = await this.redis.get(key);
    if (!hex) throw new Error('cursor secret missing in Redis');
    return hex;
  }
}
