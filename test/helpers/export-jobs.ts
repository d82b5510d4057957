/**
 * Export job records as the tests shape them: a save that overwrites the record whatever its
 * version (no compare-and-set, no index), to set up a state no request reaches in time (an old
 * job, an expired file, a sandbox job beside live ones). Serving code saves through the job
 * store's compare-and-set (server/jobs/store.ts) alone.
 */
import type { Services } from '../../server/context.ts';
import { recordTtlS, type ExportJob } from '../../server/read/async-export.ts';

/** Overwrites export job `j`'s record, its TTL the kind's. */
export async function saveJob(services: Services, j: ExportJob): Promise<void> {
  await services.redis.set(services.rk.exportJob(j.org, j.id), JSON.stringify(j), 'EX', recordTtlS(services.config));
}
