/**
 * Settlement of a job's reservation, exactly once: whichever of a completed run, a run's last
 * failure, BullMQ's final failure, a failed enqueue or the sweeper gets there first settles it
 * (CreditService.settleOnce: one script sets the job's settlement flag, gives back what is not
 * kept, counts the statistics and takes the reservation off the ledger); every later call gets
 * the first one's outcome and changes nothing.
 */
import type { Services } from '../context.ts';
import { advanceLatest } from './store.ts';
import { isFinished, type JobRecord, type PaidJobKind, type Reservation } from './kind.ts';
import type { StatsIncrement } from '../services/usage.ts';

/** What a settlement gives back and records. */
export interface Settlement {
  /** Milli-credits and rows of the reservation given back. */
  backMilli: number;
  backRows: number;
  /** What the settlement records (the kind reads it back to learn what was kept). */
  outcome: string;
  /** Usage statistics counted with the settlement (server/services/usage.ts). */
  stats?: StatsIncrement;
}

/** Settles `r`'s reservation once; returns the outcome that holds (this call's or an earlier one's) and whether this call settled. */
export async function settle(services: Services, kind: PaidJobKind<unknown, unknown, JobRecord>, r: Reservation, s: Settlement): Promise<{ settled: boolean; outcome: string }> {
  return services.credits.settleOnce({
    org: r.org,
    keyId: r.key_id,
    person: r.person,
    milli: s.backMilli,
    rows: s.backRows,
    day: r.day,
    flag: kind.settledFlag(services.rk, r.org, r.id),
    outcome: s.outcome,
    ttlS: kind.recordTtlS(services.config),
    reservation: r.id,
    stats: s.stats,
  });
}

/**
 * Releases a job that will not run (its enqueue failed, or the sweeper found no live job): the
 * whole reservation back, once, and the record (if any, and not finished) marked failed. Returns
 * whether this call released it.
 */
export async function release(services: Services, kind: PaidJobKind<unknown, unknown, JobRecord>, entry: Reservation, reason: string): Promise<boolean> {
  const { settled } = await settle(services, kind, entry, { backMilli: entry.milli, backRows: entry.rows, outcome: kind.releasedOutcome });
  // The record may move under us (a late worker): advanceLatest reads it again on a refused write.
  await advanceLatest(services, kind, entry.org, entry.id, (rec) => (isFinished(rec.status) ? null : kind.releasedRecord(rec, reason)));
  return settled;
}
