/**
 * Saved writing records of an organization: marketing identities, plays, CTAs and subjects.
 *
 * Redis layout (names from core/names.ts, all in the organization's hash slot):
 * - writingRecord(org, kind, id)  the record as JSON, with `etag`; a deleted record keeps its
 *                                 JSON with `deleted_at` (soft delete) and reads as missing
 * - writingRecords(org, kind)     sorted set of the live ids by creation time
 *
 * Every change of an existing record is a compare-and-set in one Lua script: the record is
 * written only if its ETag is still the one the change was computed from. A caller's If-Match
 * is that ETag (412 when it is stale); without one, the change is computed again on the fresh
 * record, so two concurrent writers never lose an update.
 */
import { creationScore } from '../../core/clock.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { ApiError } from '../errors.ts';

export type RecordKind = 'identity' | 'play' | 'cta' | 'subject';
type Obj = Record<string, unknown>;

/** A stored record: its fields, and what the store adds. */
export interface StoredRecord extends Obj {
  id: string;
  created_at: string;
  updated_at: string;
  etag: string;
  deleted_at?: string | null;
}

const CAS = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local d = cjson.decode(cur)
if d.deleted_at and d.deleted_at ~= cjson.null then return 0 end
if d.etag ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] == 'delete' then redis.call('ZREM', KEYS[2], ARGV[4]) end
return 1
`;

const ID_PREFIX: Record<RecordKind, string> = { identity: 'idn', play: 'play', cta: 'cta', subject: 'subj' };
/** What ids of a kind look like (anything else is not looked up). */
export const idPatternSource = (kind: RecordKind): string => `^${ID_PREFIX[kind]}_[0-9a-f]{24}$`;
export const idPattern = (kind: RecordKind) => new RegExp(idPatternSource(kind));

/** The public fields of a record (without the store's bookkeeping). */
export function publicRecord(r: StoredRecord): Obj {
  const { etag: _e, deleted_at: _d, created_by: _c, ...rest } = r;
  return rest;
}

/** A strong ETag of the record's public representation. */
const etagOf = (r: Obj): string => `"${createHash('sha256').update(JSON.stringify(publicRecord({ ...(r as StoredRecord), etag: '' }))).digest('base64url').slice(0, 27)}"`;

export const preconditionFailed = () =>
  new ApiError('PRECONDITION_FAILED', 'The record changed since that ETag was read; read it again and retry', [{ field: 'if-match', issue: 'precondition_failed', expected: 'the current ETag (GET the record)' }]);

export class WritingStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly rk: RedisKeys,
  ) {
    this.redis.defineCommand('bintelRecordCas', { numberOfKeys: 2, lua: CAS });
  }

  /** A live record (null: unknown, deleted, or another organization's: they read alike). */
  async get(org: string, kind: RecordKind, id: string): Promise<StoredRecord | null> {
    if (!idPattern(kind).test(id)) return null;
    const raw = await this.redis.get(this.rk.writingRecord(org, kind, id));
    if (!raw) return null;
    const r = JSON.parse(raw) as StoredRecord;
    return r.deleted_at ? null : r;
  }

  /** Creates records (all or none: one MULTI). */
  async create(org: string, kind: RecordKind, items: Obj[], user: string): Promise<StoredRecord[]> {
    const now = new Date().toISOString();
    const m = this.redis.multi();
    const out = items.map((fields) => {
      const created = creationScore();
      const rec = { id: `${ID_PREFIX[kind]}_${randomBytes(12).toString('hex')}`, ...fields, created_at: now, updated_at: now, created_by: user, etag: '' } as StoredRecord;
      rec.etag = etagOf(rec);
      m.set(this.rk.writingRecord(org, kind, rec.id), JSON.stringify(rec));
      m.zadd(this.rk.writingRecords(org, kind), created, rec.id);
      return rec;
    });
    await m.exec();
    return out;
  }

  /** Live records, newest first, whose `searchable` fields contain `search` (case- and accent-insensitive). */
  async list(org: string, kind: RecordKind, q: { from: number; size: number; search?: string; searchable: readonly string[] }): Promise<{ items: StoredRecord[]; total: number }> {
    const key = this.rk.writingRecords(org, kind);
    if (!q.search) {
      const [ids, total] = await Promise.all([this.redis.zrevrange(key, q.from, q.from + q.size - 1), this.redis.zcard(key)]);
      return { items: await this.load(org, kind, ids), total };
    }
    const needle = fold(q.search);
    const all = await this.load(org, kind, await this.redis.zrevrange(key, 0, -1));
    const hits = all.filter((r) => q.searchable.some((f) => typeof r[f] === 'string' && fold(r[f] as string).includes(needle)));
    return { items: hits.slice(q.from, q.from + q.size), total: hits.length };
  }

  private async load(org: string, kind: RecordKind, ids: string[]): Promise<StoredRecord[]> {
    const out: StoredRecord[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const raws = await this.redis.mget(ids.slice(i, i + 500).map((id) => this.rk.writingRecord(org, kind, id)));
      for (const raw of raws) if (raw) out.push(JSON.parse(raw) as StoredRecord);
    }
    return out.filter((r) => !r.deleted_at);
  }

  /**
   * Changes a record with `change` (given the current record, returns the new fields, or throws
   * to refuse). With `ifMatch`, the record must still carry that ETag (412 otherwise); without,
   * a concurrent change makes it start again from the fresh record. null: no such record.
   */
  async update(org: string, kind: RecordKind, id: string, change: (cur: StoredRecord) => Obj, ifMatch: string | null, opts: { delete?: boolean } = {}): Promise<StoredRecord | null> {
    const run = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<number>>).bintelRecordCas;
    for (let attempt = 0; attempt < 20; attempt++) {
      const cur = await this.get(org, kind, id);
      if (!cur) return null;
      if (ifMatch !== null && ifMatch !== cur.etag && ifMatch !== '*') throw preconditionFailed();
      const now = new Date().toISOString();
      const next = { ...change(cur), id, created_at: cur.created_at, updated_at: now, created_by: cur.created_by, etag: '' } as StoredRecord;
      if (opts.delete) next.deleted_at = now;
      next.etag = etagOf(next);
      const res = await run.call(this.redis, this.rk.writingRecord(org, kind, id), this.rk.writingRecords(org, kind), cur.etag, JSON.stringify(next), opts.delete ? 'delete' : '', id);
      if (res === 1) return next;
      if (res === 0) return null;
      if (ifMatch !== null) throw preconditionFailed();
    }
    throw new ApiError('CONFLICT', 'The record is changing too often to apply this write; retry', [{ field: 'id', issue: 'conflicting_values' }]);
  }
}

/** Lower case without accents, for search. */
export const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
