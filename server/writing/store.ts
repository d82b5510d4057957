/**
 * Saved writing records of an organization: marketing identities, plays, CTAs and subjects.
 * Plays, CTAs and subjects are personal (PERSONAL_KINDS): only the user who saved one reads,
 * lists, changes or uses it; to anyone else it does not exist. Identities are the organization's
 * (any of its users reads and uses them); the routes let only their user change them.
 *
 * Redis layout (names from core/names.ts, all in the organization's hash slot):
 * - writingRecord(org, kind, id)  the record as JSON, with `etag` and `created_by` (its user); a
 *                                 deleted record keeps its JSON with `deleted_at` (soft delete)
 *                                 and reads as missing
 * - writingRecords(org, kind)     sorted set of the live ids by creation time
 * - writingRecordsBy(org, kind, user)  the same, of one user's records; records saved before
 *                                 these sets existed are added to them once per organization and
 *                                 kind (writingRecordsByIndexed marks it done)
 *
 * Creation checks the caps (records per user, per organization, each kind apart) in the script
 * that writes, so concurrent creates never pass them.
 *
 * Every change of an existing record is a compare-and-set in one Lua script: the record is
 * written only if its ETag is still the one the change was computed from. A caller's If-Match
 * is that ETag (412 when it is stale); without one, the change is computed again on the fresh
 * record, so two concurrent writers never lose an update.
 */
import { creationScore } from '../../core/clock.ts';
import { createHash, randomBytes } from 'node:crypto';
import { defineScript, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import { ApiError } from '../errors.ts';
import { RETRY, compareAndSet } from '../cas.ts';

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

/**
 * KEYS: record, the organization's index, its user's index. ARGV: the ETag read, the JSON to
 * write, 'delete' (or ''), id. 1 when written; 0 when the record is gone or deleted; -1 when its
 * ETag changed.
 */
const CAS = defineScript<number, [etag: string, json: string, op: 'delete' | '', id: string]>({
  name: 'writing:cas',
  keys: 3,
  lua: `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local d = cjson.decode(cur)
if d.deleted_at and d.deleted_at ~= cjson.null then return 0 end
if d.etag ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] == 'delete' then
  redis.call('ZREM', KEYS[2], ARGV[4])
  redis.call('ZREM', KEYS[3], ARGV[4])
end
return 1
`,
});

/**
 * Creates records within the caps. KEYS: the organization's index, the user's index, then one
 * record key per record. ARGV: the organization's cap, the user's cap, then (score, id, JSON)
 * per record. Returns {1}, or {-2, count} (organization) / {-1, count} (user) with nothing written.
 */
const CREATE = defineScript<[code: number, current?: number], [orgCap: number, userCap: number, ...records: (string | number)[]]>({
  name: 'writing:create',
  keys: 'variadic',
  lua: `
local n = #KEYS - 2
local org = redis.call('ZCARD', KEYS[1])
if org + n > tonumber(ARGV[1]) then return {-2, org} end
local mine = redis.call('ZCARD', KEYS[2])
if mine + n > tonumber(ARGV[2]) then return {-1, mine} end
for i = 1, n do
  local a = 3 + (i - 1) * 3
  redis.call('SET', KEYS[2 + i], ARGV[a + 2])
  redis.call('ZADD', KEYS[1], ARGV[a], ARGV[a + 1])
  redis.call('ZADD', KEYS[2], ARGV[a], ARGV[a + 1])
end
return {1}
`,
});

/** Plays, CTAs and subjects: their user's alone. */
export const PERSONAL_KINDS: readonly RecordKind[] = ['play', 'cta', 'subject'];
export const isPersonal = (kind: RecordKind): boolean => PERSONAL_KINDS.includes(kind);

/** Records one user and one organization may hold of a kind. */
export interface RecordCap {
  perUser: number;
  perOrg: number;
}

/** What `create` did: the records, or which cap refused them (nothing written). */
export type Created = { records: StoredRecord[] } | { capped: 'user' | 'organization'; limit: number; current: number };

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
  ) {}

  /**
   * A live record `user` may read (null: unknown, deleted, another organization's, or another
   * user's personal record: they read alike).
   */
  async get(org: string, kind: RecordKind, id: string, user: string): Promise<StoredRecord | null> {
    if (!idPattern(kind).test(id)) return null;
    const raw = await this.redis.get(this.rk.writingRecord(org, kind, id));
    if (!raw) return null;
    const r = JSON.parse(raw) as StoredRecord;
    if (isPersonal(kind) && r.created_by !== user) return null;
    return r.deleted_at ? null : r;
  }

  /** Creates records of `user` (all or none: one script), within `cap`. */
  async create(org: string, kind: RecordKind, items: Obj[], user: string, cap: RecordCap): Promise<Created> {
    await this.indexByUser(org, kind);
    const now = new Date().toISOString();
    const keys = [this.rk.writingRecords(org, kind), this.rk.writingRecordsBy(org, kind, user)];
    const records: (string | number)[] = [];
    const out = items.map((fields) => {
      const created = creationScore();
      const rec = { id: `${ID_PREFIX[kind]}_${randomBytes(12).toString('hex')}`, ...fields, created_at: now, updated_at: now, created_by: user, etag: '' } as StoredRecord;
      rec.etag = etagOf(rec);
      keys.push(this.rk.writingRecord(org, kind, rec.id));
      records.push(created, rec.id, JSON.stringify(rec));
      return rec;
    });
    const [code, current] = await CREATE.run(this.redis, keys, [cap.perOrg, cap.perUser, ...records]);
    if (code === -2) return { capped: 'organization', limit: cap.perOrg, current: Number(current) };
    if (code === -1) return { capped: 'user', limit: cap.perUser, current: Number(current) };
    return { records: out };
  }

  /**
   * Live records `user` may list, newest first (a personal kind: the user's; identities: the
   * organization's), whose `searchable` fields contain `search` (case- and accent-insensitive).
   */
  async list(org: string, kind: RecordKind, user: string, q: { from: number; size: number; search?: string; searchable: readonly string[] }): Promise<{ items: StoredRecord[]; total: number }> {
    let key = this.rk.writingRecords(org, kind);
    if (isPersonal(kind)) {
      await this.indexByUser(org, kind);
      key = this.rk.writingRecordsBy(org, kind, user);
    }
    if (!q.search) {
      const [ids, total] = await Promise.all([this.redis.zrevrange(key, q.from, q.from + q.size - 1), this.redis.zcard(key)]);
      return { items: await this.load(org, kind, ids), total };
    }
    const needle = fold(q.search);
    const all = await this.load(org, kind, await this.redis.zrevrange(key, 0, -1));
    const hits = all.filter((r) => q.searchable.some((f) => typeof r[f] === 'string' && fold(r[f] as string).includes(needle)));
    return { items: hits.slice(q.from, q.from + q.size), total: hits.length };
  }

  /**
   * Adds the records saved before per-user indexes existed to their user's index, once per
   * organization and kind (ZADD is idempotent: two processes doing it at once agree).
   */
  private async indexByUser(org: string, kind: RecordKind): Promise<void> {
    const done = this.rk.writingRecordsByIndexed(org, kind);
    if (await this.redis.exists(done)) return;
    const withScores = await this.redis.zrange(this.rk.writingRecords(org, kind), '0', '-1', 'WITHSCORES');
    const scores = new Map<string, string>();
    for (let i = 0; i < withScores.length; i += 2) scores.set(withScores[i], withScores[i + 1]);
    const m = this.redis.multi();
    for (const r of await this.load(org, kind, [...scores.keys()])) {
      if (typeof r.created_by === 'string') m.zadd(this.rk.writingRecordsBy(org, kind, r.created_by), scores.get(r.id)!, r.id);
    }
    m.set(done, '1');
    await m.exec();
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
  async update(org: string, kind: RecordKind, id: string, user: string, change: (cur: StoredRecord) => Obj, ifMatch: string | null, opts: { delete?: boolean } = {}): Promise<StoredRecord | null> {
    return compareAndSet<StoredRecord | null>({ field: 'id', what: 'The record' }, async () => {
      const cur = await this.get(org, kind, id, user);
      if (!cur) return null;
      if (ifMatch !== null && ifMatch !== cur.etag && ifMatch !== '*') throw preconditionFailed();
      const now = new Date().toISOString();
      const next = { ...change(cur), id, created_at: cur.created_at, updated_at: now, created_by: cur.created_by, etag: '' } as StoredRecord;
      if (opts.delete) next.deleted_at = now;
      next.etag = etagOf(next);
      const keys = [this.rk.writingRecord(org, kind, id), this.rk.writingRecords(org, kind), this.rk.writingRecordsBy(org, kind, String(cur.created_by))];
      const res = await CAS.run(this.redis, keys, [cur.etag, JSON.stringify(next), opts.delete ? 'delete' : '', id]);
      if (res === 1) return next;
      if (res === 0) return null;
      if (ifMatch !== null) throw preconditionFailed();
      return RETRY;
    });
  }
}

/** Lower case without accents, for search. */
export const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
