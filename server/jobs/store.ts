/**
 * The job store: load, list and save job records of every kind, and read the credit ledger
 * (reservations by organization and time) and Idempotency-Key claims; the rest of the job layer
 * reaches job state in Redis only through it (or through a script). A save is a compare-and-set on
 * the status and version the writer read, and only along TRANSITIONS: a worker whose lease lapsed
 * and whose job another worker has since moved on cannot write its stale copy (the write is
 * refused and logged, never applied). The same script keeps the organization's active set (kinds
 * with a cap) and the record's status index (writing jobs) in step with the status.
 */
import type { Services } from '../context.ts';
import { defineScript } from '../../core/adapters/redis.ts';
import { TRANSITIONS, isFinished, type JobRecord, type PaidJobKind, type Reservation } from './kind.ts';
import { RETRY, compareAndSet } from '../cas.ts';

/**
 * KEYS: record, active set, index of the old status, index of the new (the record key again
 * when none). ARGV: status read, version read, JSON to write, TTL, id, 1 when the new status is
 * final, score. 1 when written; 0 when the record is gone; -1 when it changed since it was read.
 */
const SAVE = defineScript<number, [status: string, version: number, json: string, ttlS: number, id: string, final: 0 | 1, score: number]>({
  name: 'jobs:save',
  keys: 4,
  lua: `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local rec = cjson.decode(cur)
if rec.status ~= ARGV[1] or tostring(rec.version or 0) ~= ARGV[2] then return -1 end
redis.call('SET', KEYS[1], ARGV[3], 'EX', tonumber(ARGV[4]))
if ARGV[6] == '1' then redis.call('SREM', KEYS[2], ARGV[5]) end
if KEYS[3] ~= KEYS[4] then
  if KEYS[3] ~= KEYS[1] then redis.call('ZREM', KEYS[3], ARGV[5]) end
  if KEYS[4] ~= KEYS[1] then
    redis.call('ZADD', KEYS[4], tonumber(ARGV[7]), ARGV[5])
    redis.call('EXPIRE', KEYS[4], tonumber(ARGV[4]))
  end
end
return 1
`,
});

/** A write refused because the record changed since it was read (another worker has the job). */
export class StaleJobError extends Error {
  constructor(kind: string, id: string) {
    super(`${kind} job ${id}: the record changed since this worker read it; its write was refused`);
  }
}

/** Org of a record: from its reservation (every kind's records carry one). */
const orgOf = (r: JobRecord): string => r.reservation.org;

/** A stored record (every record a live job can hold was saved with its version, tier and side). */
const parseRecord = <R extends JobRecord>(raw: string): R => JSON.parse(raw) as R;

/** A stored record, or null when it is gone (expired). */
export async function loadRecord<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, id: string): Promise<R | null> {
  const raw = await services.redis.get(kind.recordKey(services.rk, org, id));
  return raw ? parseRecord<R>(raw) : null;
}

/** Records by id in the order given, null where the record is gone (expired). */
async function loadRecordsOrGone<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, ids: readonly string[]): Promise<(R | null)[]> {
  if (!ids.length) return [];
  const raws = await services.redis.mget(ids.map((id) => kind.recordKey(services.rk, org, id)));
  return raws.map((x) => (x === null ? null : parseRecord<R>(x)));
}

/** Records by id (an index page), in the order given; ids whose record expired are left out. */
async function loadRecords<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, ids: readonly string[]): Promise<R[]> {
  return (await loadRecordsOrGone(services, kind, org, ids)).filter((r): r is R => r !== null);
}

/** Ids read from an index per round trip while a filtered list walks it. */
const LIST_BATCH = 200;

/**
 * One page of records listed in every one of `sets` (sorted sets of one organization's slot, by
 * creation), newest first, and how many there are: the one way job records are listed.
 *
 * Without `where`, the page is read straight from the index (or the intersection of the indexes)
 * and the total is its size. With `where` (what an index cannot say: who may read a job), the
 * records it refuses are left out of both: the index is walked newest first in batches, up to
 * `bound` ids (an organization keeps no more), so a call's work is bounded whatever the index
 * holds; ids whose record has expired are dropped from the indexes on the way.
 */
export async function listIndexed<R extends JobRecord>(
  services: Services,
  kind: PaidJobKind<unknown, unknown, R>,
  org: string,
  sets: readonly string[],
  page: { from: number; size: number; where?: (r: R) => boolean; bound?: number },
): Promise<{ records: R[]; total: number }> {
  const { redis } = services;
  /** The intersection of several indexes, newest first. */
  const intersection = async (): Promise<string[]> => {
    const all = (await redis.call('ZINTER', sets.length, ...sets, 'AGGREGATE', 'MAX')) as string[];
    // ZINTER answers in ascending score (creation) order: newest first is the reverse.
    return all.reverse();
  };
  /** Ids from `start` to `stop` (inclusive), newest first. */
  const idsAt = async (start: number, stop: number): Promise<string[]> => (sets.length === 1 ? redis.zrevrange(sets[0], start, stop) : (await intersection()).slice(start, stop + 1));
  const { where } = page;
  if (!where) {
    const stop = page.from + page.size - 1;
    const [ids, total] = sets.length === 1 ? await Promise.all([idsAt(page.from, stop), redis.zcard(sets[0])]) : await intersection().then((all) => [all.slice(page.from, stop + 1), all.length] as const);
    return { records: await loadRecords(services, kind, org, ids), total };
  }
  const bound = page.bound ?? Infinity;
  const records: R[] = [];
  let total = 0;
  for (let start = 0; start < bound; start += LIST_BATCH) {
    const ids = await idsAt(start, Math.min(start + LIST_BATCH, bound) - 1);
    if (!ids.length) break;
    const found = await loadRecordsOrGone(services, kind, org, ids);
    const gone = ids.filter((_, i) => found[i] === null);
    for (const r of found) {
      if (!r || !where(r)) continue;
      if (total >= page.from && records.length < page.size) records.push(r);
      total++;
    }
    if (gone.length) {
      for (const set of sets) await redis.zrem(set, ...gone);
      start -= gone.length;
    }
    if (ids.length < LIST_BATCH) break;
  }
  return { records, total };
}

/** How long this process trusts that an organization is in the sweeper's set before adding it again. */
const LEDGER_ORG_RECHECK_MS = 10 * 60_000;
/** When this process last added each organization to the sweeper's set (by set and organization), per Redis client. */
const ledgerOrgsSeen = new WeakMap<object, Map<string, number>>();

/**
 * Adds the organization to the set the sweeper walks (ledgerOrgs), once per organization per
 * process every LEDGER_ORG_RECHECK_MS rather than on every accept: the member is never removed,
 * so the write repeated only for a set that was wiped (a state import).
 */
export async function noteLedgerOrg(services: Services, org: string): Promise<void> {
  let seen = ledgerOrgsSeen.get(services.redis);
  if (!seen) ledgerOrgsSeen.set(services.redis, (seen = new Map()));
  const set = services.rk.ledgerOrgs();
  const member = `${set}\n${org}`;
  const at = seen.get(member);
  if (at !== undefined && Date.now() - at < LEDGER_ORG_RECHECK_MS) return;
  await services.redis.sadd(set, org);
  if (seen.size >= 100_000) seen.clear();
  seen.set(member, Date.now());
}

/** The organizations that ever reserved credits for a job (the sweeper walks their ledgers). */
export const ledgerOrgs = (services: Services): Promise<string[]> => services.redis.smembers(services.rk.ledgerOrgs());

/** The ledger entries of `org` reserved at or before `at` (epoch ms), oldest first. */
export async function reservationsUntil(services: Services, org: string, at: number): Promise<Reservation[]> {
  const { redis, rk } = services;
  const ids = await redis.zrangebyscore(rk.ledgerByTime(org), '-inf', at);
  if (!ids.length) return [];
  const entries = await redis.hmget(rk.ledger(org), ...ids);
  return entries.filter((json): json is string => json !== null).map((json) => JSON.parse(json) as Reservation);
}

/** Whether the ledger of `org` still holds the reservation of job `id` (not settled). */
export const hasReservation = async (services: Services, org: string, id: string): Promise<boolean> => (await services.redis.hexists(services.rk.ledger(org), id)) === 1;

/** The job an Idempotency-Key claim names (services/claim.ts writes `<id>|<fingerprint>`), or null when unclaimed. */
export async function readClaim(services: Services, claimKey: string): Promise<{ id: string; fingerprint: string } | null> {
  const v = await services.redis.get(claimKey);
  return v ? { id: v.slice(0, v.indexOf('|')), fingerprint: v.slice(v.indexOf('|') + 1) } : null;
}

/** Frees a claim if it names job `id` (another job's claim stays). */
export async function freeClaim(services: Services, claimKey: string, id: string): Promise<void> {
  const claim = await services.redis.get(claimKey);
  if (claim?.startsWith(`${id}|`)) await services.redis.del(claimKey);
}

/**
 * Moves `current` (as read) to `current` with `patch` applied and its version bumped. Returns
 * the saved record; throws StaleJobError when the record changed since it was read, and an
 * Error for a transition TRANSITIONS does not allow.
 */
export async function advance<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, current: R, patch: Partial<R>): Promise<R> {
  const next = { ...current, ...patch, version: current.version + 1 } as R;
  if (!TRANSITIONS[current.status].includes(next.status)) throw new Error(`${kind.name} job ${current.id}: no transition from ${current.status} to ${next.status}`);
  const { rk, config } = services;
  const org = orgOf(current);
  const recordKey = kind.recordKey(rk, org, current.id);
  const from = kind.statusIndex(rk, current, current.status) ?? recordKey;
  const to = kind.statusIndex(rk, next, next.status) ?? recordKey;
  const keys = [recordKey, rk.activeJobs(org, kind.name), from, to];
  const res = Number(await SAVE.run(services.redis, keys, [current.status, current.version, JSON.stringify(next), kind.recordTtlS(config), current.id, isFinished(next.status) ? 1 : 0, kind.score(next)]));
  if (res !== 1) {
    services.log.warn({ kind: kind.name, job: current.id, org, from: current.status, to: next.status, version: current.version }, 'stale job write refused');
    throw new StaleJobError(kind.name, current.id);
  }
  await kind.afterSave?.(services, next);
  return next;
}

/**
 * Moves a job's record by `step`, reading it again whenever another writer moved it first:
 * `step` sees the record as stored now and answers the patch to apply, or null to leave it
 * (gone, finished, or settled elsewhere). Returns the saved record, or null when left. After
 * `tries` refused writes it gives up: a record that keeps moving has a live owner, who settles it.
 */
export async function advanceLatest<R extends JobRecord>(
  services: Services,
  kind: PaidJobKind<unknown, unknown, R>,
  org: string,
  id: string,
  step: (current: R) => Partial<R> | null | Promise<Partial<R> | null>,
  tries = 5,
): Promise<R | null> {
  return compareAndSet<R | null>({ field: 'id', what: 'The job', attempts: tries, exhausted: () => null }, async () => {
    const current = await loadRecord(services, kind, org, id);
    if (!current) return null;
    const patch = await step(current);
    if (!patch) return null;
    try {
      return await advance(services, kind, current, patch);
    } catch (err) {
      if (!(err instanceof StaleJobError)) throw err;
      return RETRY;
    }
  });
}
