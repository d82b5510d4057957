/**
 * Sends a synchronous CSV export and settles what was held for it. The route has reserved the
 * file's rows before the first byte (chargeRows); the file is then written to the connection row
 * by row (socket-rows.ts), and when it ends, complete or not, the reservation is settled to the
 * rows the connection took: the rest (the client went, the walk failed, the data shrank since
 * the count) is given back to the pool, the key's usage and budget spend, and its daily rows, in
 * one Redis script (refundRows). A client gone before the first row pays nothing.
 */
import type { ServerResponse } from 'node:http';
import type { Services } from '../context.ts';
import type { AuthState } from '../middleware/auth.ts';
import { toCredits } from '../pricing.ts';
import { refundRows } from './charge.ts';
import { csvHead, exportLines, type ExportWalk } from './export.ts';
import { writeRows } from './socket-rows.ts';

/**
 * Writes the export to `res`, settles, and logs `export ended` (rows reserved and written, credits
 * kept, whether the client went). Rethrows the walk's error once settled (the response is then
 * already cut: the envelope only logs it).
 */
export async function sendExport(services: Services, auth: AuthState, res: ServerResponse, w: ExportWalk & { requestId: string }): Promise<void> {
  const { requestId, ...walk } = w;
  const { def } = w.req;
  const written = await writeRows(res, csvHead(w.grant), exportLines(services, auth, walk));
  const unsent = w.rows - written.rows;
  const back = await refundRows(services, { auth, def, tier: w.grant.projection.tier, rows: unsent, signals: w.req.signals, charge: w.charge }).catch((err: Error) => {
    services.log.error({ err: err.message, requestId, org: auth.key.org, rows: unsent }, 'export refund failed');
    return 0;
  });
  services.log.info(
    { requestId, org: auth.key.org, key: auth.key.id, resource: def.name, rows_reserved: w.rows, rows_written: written.rows, credits_charged: toCredits(w.charge.milli - back), client_gone: !written.complete && !written.error },
    'export ended',
  );
  if (written.error) throw written.error;
}
