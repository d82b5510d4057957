/**
 * The reservation sweeper: a reservation older than the bound (BINTEL_JOB_SWEEP_AFTER_S) whose
 * job is not live is released, once, and logged. A job is live when its record exists, is not
 * finished, and the queue holds it (waiting, delayed, active or prioritized). What leaves
 * reservations behind: a process that died between the accept script and the enqueue, or an
 * undo that could not reach Redis. Settlement is by the job's flag (settle.ts), so two sweepers,
 * or a sweeper and a late worker, release it once.
 *
 * Every process that runs workers sweeps every BINTEL_JOB_SWEEP_AFTER_S / 2 seconds.
 */
import type { Services } from '../context.ts';
import { ledgerOrgs, loadRecord, reservationsUntil } from './store.ts';
import { release } from './settle.ts';
import { isFinished, type AnyPaidJobKind, type Reservation } from './kind.ts';

/** One released reservation. */
export interface Swept {
  reservation: Reservation;
  /** This pass released it (false: another sweeper or a worker settled it first). */
  released: boolean;
}

/** One pass over every organization's ledger: releases reservations older than `olderThanS` with no live job. */
export async function sweep(services: Services, kinds: readonly AnyPaidJobKind[], olderThanS: number, now = Date.now()): Promise<Swept[]> {
  const { log } = services;
  const byName = new Map(kinds.map((k) => [k.name, k]));
  const out: Swept[] = [];
  for (const org of await ledgerOrgs(services)) {
    for (const entry of await reservationsUntil(services, org, now - olderThanS * 1000)) {
      const kind = byName.get(entry.kind);
      if (!kind || (await isLive(services, kind, entry))) continue;
      const released = await release(services, kind, entry, 'The job never started; its reservation was released');
      if (released) log.warn({ org, job: entry.id, kind: entry.kind, milli: entry.milli, reserved_at: new Date(entry.at).toISOString() }, 'reservation with no live job released');
      out.push({ reservation: entry, released });
    }
  }
  return out;
}

async function isLive(services: Services, kind: AnyPaidJobKind, entry: Reservation): Promise<boolean> {
  const rec = await loadRecord(services, kind, entry.org, entry.id);
  if (!rec || isFinished(rec.status)) return false;
  const state = await services.jobs.state(kind, entry.id);
  return state !== 'unknown' && state !== 'completed' && state !== 'failed';
}
