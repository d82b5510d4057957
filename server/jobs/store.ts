/**
 * The job store: load, list and save job records of every kind. A save is a compare-and-set on
 * the status and version the writer read, and only along TRANSITIONS: a worker whose lease lapsed
 * and whose job another worker has since moved on cannot write its stale copy (the write is
 * refused and logged, never applied). The same script keeps the organization's active set (kinds
 * with a cap) and the record's status index (writing jobs) in step with the status.
 */
import type { Services } from '../context.ts';
import { defineScript } from '../../core/adapters/redis.ts';
import { TRANSITIONS, isFinished, type JobRecord, type PaidJobKind } from './kind.ts';
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

/** A stored record as the kind reads it today: records saved before versions existed read as version 0. */
function revive<R extends JobRecord>(kind: PaidJobKind<unknown, unknown, R>, raw: string): R {
  const r = JSON.parse(raw) as R;
  r.version ??= 0;
  return kind.revive ? kind.revive(r) : r;
}

/** A stored record, or null when it is gone (expired). */
export async function loadRecord<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, id: string): Promise<R | null> {
  const raw = await services.redis.get(kind.recordKey(services.rk, org, id));
  return raw ? revive(kind, raw) : null;
}

/** Records by id in the order given, null where the record is gone (expired). */
export async function loadRecordsOrGone<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, ids: readonly string[]): Promise<(R | null)[]> {
  if (!ids.length) return [];
  const raws = await services.redis.mget(ids.map((id) => kind.recordKey(services.rk, org, id)));
  return raws.map((x) => (x === null ? null : revive(kind, x)));
}

/** Records by id (an index page), in the order given; ids whose record expired are left out. */
export async function loadRecords<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, ids: readonly string[]): Promise<R[]> {
  return (await loadRecordsOrGone(services, kind, org, ids)).filter((r): r is R => r !== null);
}

/**
 * One page of records listed in every one of `sets` (sorted sets of one organization's slot, by
 * creation), newest first, and how many there are.
 */
export async function listIndexed<R extends JobRecord>(services: Services, kind: PaidJobKind<unknown, unknown, R>, org: string, sets: readonly string[], page: { from: number; size: number }): Promise<{ records: R[]; total: number }> {
  const { redis } = services;
  let ids: string[];
  let total: number;
  if (sets.length > 1) {
    const all = (await redis.call('ZINTER', sets.length, ...sets, 'AGGREGATE', 'MAX')) as string[];
    // ZINTER answers in ascending score (creation) order: newest first is the reverse.
    all.reverse();
    total = all.length;
    ids = all.slice(page.from, page.from + page.size);
  } else {
    [ids, total] = await Promise.all([redis.zrevrange(sets[0], page.from, page.from + page.size - 1), redis.zcard(sets[0])]);
  }
  return { records: await loadRecords(services, kind, org, ids), total };
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
