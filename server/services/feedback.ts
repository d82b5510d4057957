/**
 * Bug reports and review (data) flags filed from automation, kept in Redis per organization and
 * resolved by an operator from the CLI (`bintel reports|flags list|show|resolve`).
 *
 * Layout (core/names.ts): a record (JSON) and its author's index (sorted set by creation) live in
 * the organization's slot, with the Idempotency-Key claim, so one script files a record, its
 * index entry and its claim at once. The operator's index (every record, newest first, and which
 * organization holds each id) lives in its own `{feedback}` slot and is written right after;
 * an idempotent repeat writes it again, so a failure between the two heals on the retry.
 *
 * An organization holds at most `maxOpen` open records of each kind (BINTEL_FEEDBACK_MAX_OPEN), and
 * one user at most `maxOpenPerUser` (BINTEL_FEEDBACK_MAX_OPEN_PER_USER): the ids of the open
 * records are a set of the organization and one per user, in its slot, counted and added to by the
 * same script that files a record (so concurrent filings never pass either cap), and left by the
 * resolve.
 */
import { randomBytes } from 'node:crypto';
import { RETRY, compareAndSet } from '../cas.ts';
import { CLAIMED, KEPT, claimLua, fingerprintOf } from './claim.ts';
import { defineScript, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';

export const FEEDBACK_KINDS = ['report', 'flag'] as const;
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number];
export const FEEDBACK_STATUSES = ['open', 'resolved'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** Id prefixes: `rpt_` and `flg_` then 24 hex characters. */
const PREFIX: Record<FeedbackKind, string> = { report: 'rpt_', flag: 'flg_' };
/** The id pattern of a kind (the routes and the document use it): `^rpt_[0-9a-f]{24}$`. */
export const feedbackIdPattern = (kind: FeedbackKind): string => `^${PREFIX[kind]}[0-9a-f]{24}$`;
export const feedbackIdRe = (kind: FeedbackKind): RegExp => new RegExp(feedbackIdPattern(kind));

/** Who filed a record: the key and its user (never the secret). */
export interface FiledBy {
  key_id: string;
  user: string;
}

/** What every record carries besides its own fields. */
export interface FeedbackRecord {
  id: string;
  org: string;
  status: FeedbackStatus;
  filed_by: FiledBy;
  created_at: string;
  resolved_at: string | null;
  resolved_by: string | null;
  resolution_note: string | null;
  [field: string]: unknown;
}

/**
 * Files a record once per Idempotency-Key (the claim of server/services/claim.ts), within the caps:
 * KEYS = claim, record, author index, open set, the author's open set; ARGV = id, fingerprint,
 * claim TTL ('' = no key), JSON, score, cap, the author's cap. Returns {5, id, fingerprint} of
 * the record the key already names (a repeat answers even at the cap), {1} when this call filed
 * it, {6, open} when the organization's open records are at its cap, or {7, open} when the
 * author's are at theirs.
 */
const FILE_SCRIPT = defineScript<[code: number, earlierId?: string | number, earlierFingerprint?: string], [id: string, fingerprint: string, claimTtlS: number | '', json: string, score: number, cap: number, authorCap: number]>({
  name: 'feedback:file',
  keys: 5,
  lua: `${claimLua(1, 1)}
local org = redis.call('SCARD', KEYS[4])
if org >= tonumber(ARGV[6]) then return {6, org} end
local mine = redis.call('SCARD', KEYS[5])
if mine >= tonumber(ARGV[7]) then return {7, mine} end
redis.call('SET', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
claim()
return {1}
`,
});

/** Resolves a record by compare-and-set: KEYS = record, open set, the author's open set; ARGV = the JSON read, the JSON to write, id. 1 when written. */
const RESOLVE_SCRIPT = defineScript<number, [read: string, next: string, id: string]>({
  name: 'feedback:resolve',
  keys: 3,
  lua: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('SREM', KEYS[3], ARGV[3])
return 1
`,
});

/** What `file` did: the record, and whether an earlier call with the same key had filed it; or why nothing was filed. */
export type Filed = { record: FeedbackRecord; reused: boolean } | { conflict: true } | { capped: number; open: number; per: 'user' | 'organization' };

export class FeedbackStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly rk: RedisKeys,
    /** Open records of one kind an organization may hold (BINTEL_FEEDBACK_MAX_OPEN). */
    private readonly maxOpen: number,
    /** Open records of one kind one user may hold (BINTEL_FEEDBACK_MAX_OPEN_PER_USER). */
    private readonly maxOpenPerUser: number = maxOpen,
  ) {}

  /** Files a record (`fields` are the kind's own) for the calling key, once per Idempotency-Key. */
  async file(kind: FeedbackKind, who: { org: string; user: string; keyId: string }, fields: Record<string, unknown>, idemKey: string | null): Promise<Filed> {
    const now = new Date();
    const record: FeedbackRecord = {
      id: `${PREFIX[kind]}${randomBytes(12).toString('hex')}`,
      org: who.org,
      status: 'open',
      ...fields,
      filed_by: { key_id: who.keyId, user: who.user },
      created_at: now.toISOString(),
      resolved_at: null,
      resolved_by: null,
      resolution_note: null,
    };
    const fingerprint = fingerprintOf(kind, who.keyId, fields);
    const keys = [this.rk.idemClaim(who.org, who.user, kind, idemKey ?? '-'), this.rk.feedback(who.org, kind, record.id), this.rk.feedbackByUser(who.org, kind, who.user), this.rk.feedbackOpen(who.org, kind), this.rk.feedbackOpenBy(who.org, kind, who.user)];
    const [code, earlierId, earlierFingerprint] = await FILE_SCRIPT.run(this.redis, keys, [record.id, fingerprint, idemKey ? KEPT : '', JSON.stringify(record), now.getTime(), this.maxOpen, this.maxOpenPerUser]);
    if (code === 6) return { capped: this.maxOpen, open: Number(earlierId), per: 'organization' };
    if (code === 7) return { capped: this.maxOpenPerUser, open: Number(earlierId), per: 'user' };
    const created = code !== CLAIMED;
    if (!created && earlierFingerprint !== fingerprint) return { conflict: true };
    const saved = created ? record : await this.get(kind, who.org, String(earlierId));
    if (!saved) return { conflict: true };
    // The operator's index: written after the record, again on every repeat (see the module comment).
    await this.redis.multi().zadd(this.rk.feedbackAll(kind), Date.parse(saved.created_at), saved.id).hset(this.rk.feedbackOrgs(kind), saved.id, saved.org).exec();
    return { record: saved, reused: !created };
  }

  /** One record of an organization, or null. */
  async get(kind: FeedbackKind, org: string, id: string): Promise<FeedbackRecord | null> {
    const raw = await this.redis.get(this.rk.feedback(org, kind, id));
    return raw ? (JSON.parse(raw) as FeedbackRecord) : null;
  }

  /** A page of what one user of an organization filed, newest first, with the total. */
  async listByUser(kind: FeedbackKind, org: string, user: string, page: number, pageSize: number, status?: FeedbackStatus): Promise<{ records: FeedbackRecord[]; total: number }> {
    const key = this.rk.feedbackByUser(org, kind, user);
    if (!status) {
      const [ids, total] = await Promise.all([this.redis.zrevrange(key, page * pageSize, page * pageSize + pageSize - 1), this.redis.zcard(key)]);
      return { records: await this.load(kind, ids.map((id) => ({ org, id }))), total };
    }
    // A status filter reads the user's whole index: a user files tens or hundreds of records, not millions.
    const all = await this.load(kind, (await this.redis.zrevrange(key, 0, -1)).map((id) => ({ org, id })));
    const matching = all.filter((r) => r.status === status);
    return { records: matching.slice(page * pageSize, page * pageSize + pageSize), total: matching.length };
  }

  /** Records in order, skipping any that disappeared. */
  private async load(kind: FeedbackKind, refs: { org: string; id: string }[]): Promise<FeedbackRecord[]> {
    const raws = await Promise.all(refs.map((r) => this.redis.get(this.rk.feedback(r.org, kind, r.id))));
    return raws.filter((x): x is string => x !== null).map((x) => JSON.parse(x) as FeedbackRecord);
  }

  /** The operator's view: every record, newest first, optionally of one status or organization, at most `limit`. */
  async listAll(kind: FeedbackKind, opts: { status?: FeedbackStatus; org?: string; limit: number }): Promise<FeedbackRecord[]> {
    const out: FeedbackRecord[] = [];
    const batch = 200;
    for (let start = 0; out.length < opts.limit; start += batch) {
      const ids = await this.redis.zrevrange(this.rk.feedbackAll(kind), start, start + batch - 1);
      if (!ids.length) break;
      const orgs = await this.redis.hmget(this.rk.feedbackOrgs(kind), ...ids);
      const refs = ids.flatMap((id, i) => (orgs[i] && (!opts.org || orgs[i] === opts.org) ? [{ org: orgs[i] as string, id }] : []));
      for (const r of await this.load(kind, refs)) if (!opts.status || r.status === opts.status) out.push(r);
    }
    return out.slice(0, opts.limit);
  }

  /** A record by id alone (the operator does not name the organization), or null. */
  async find(kind: FeedbackKind, id: string): Promise<FeedbackRecord | null> {
    const org = await this.redis.hget(this.rk.feedbackOrgs(kind), id);
    return org ? this.get(kind, org, id) : null;
  }

  /** Resolves a record with a note: the record, or why not (a concurrent change is retried). */
  async resolve(kind: FeedbackKind, id: string, by: string, note: string): Promise<FeedbackRecord | 'missing' | 'resolved'> {
    const org = await this.redis.hget(this.rk.feedbackOrgs(kind), id);
    if (!org) return 'missing';
    const key = this.rk.feedback(org, kind, id);
    return compareAndSet<FeedbackRecord | 'missing' | 'resolved'>({ field: 'id', what: 'The record' }, async () => {
      const raw = await this.redis.get(key);
      if (!raw) return 'missing';
      const rec = JSON.parse(raw) as FeedbackRecord;
      if (rec.status === 'resolved') return 'resolved';
      const next: FeedbackRecord = { ...rec, status: 'resolved', resolved_at: new Date().toISOString(), resolved_by: by, resolution_note: note };
      return (await RESOLVE_SCRIPT.run(this.redis, [key, this.rk.feedbackOpen(org, kind), this.rk.feedbackOpenBy(org, kind, rec.filed_by.user)], [raw, JSON.stringify(next), id])) === 1 ? next : RETRY;
    });
  }
}
