/**
 * The synchronous CSV export (GET /v1/{resource}/export.csv): `holdExport` composes parse →
 * depth bound of the page → authorize → caller context → build → exact count → the rows reserved
 * with the page's crawl step, as a list page takes it (before the first byte: a 402 or 429 is
 * still the JSON envelope); `sendExport` sends it and settles what was held. The file is then written to the connection row
 * by row (socket-rows.ts), and when it ends, complete or not, the reservation is settled to the
 * rows the connection took: the rest (the client went, the walk failed, the data shrank since
 * the count) is given back to the pool, the key's usage and budget spend, and its daily rows, in
 * one Redis script (refundRows). A client gone before the first row pays nothing.
 */
import type { ServerResponse } from 'node:http';
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import { toCredits } from '../pricing.ts';
import type { EntityDef } from '../../mappings/types.ts';
import { chargeRows, refundRows, type Charge } from './charge.ts';
import { checkExportDepth, csvHead, exportLines, exportOffset, parseExportRequest, planExport, sizedExport, type ExportWalk } from './export.ts';
import { crawlStep } from './list.ts';
import type { RawQuery } from './request.ts';
import { writeRows } from './socket-rows.ts';

/** A synchronous export held: the walk of its file and the rows matching its query. */
export interface HeldExport extends ExportWalk {
  count: number;
}

/**
 * The export of the query `q` of `def`, its exact rows reserved before the first byte (402 when
 * the pool or the key's budget cannot pay). `connected` false: the client went during the count,
 * nothing is held.
 */
export async function holdExport(services: Services, auth: AuthState, def: EntityDef, q: RawQuery, connected: () => boolean): Promise<HeldExport> {
  const req = sizedExport(parseExportRequest(def, q), auth.key);
  checkExportDepth(req, services.config.pageWindow);
  const offset = exportOffset(req);
  // Page after page of one filter combination is a crawl, whether read as list pages or as export pages (one count).
  const crawl = crawlStep(services, auth, req, offset);
  const { grant, index, body, count, rows } = await planExport(services, auth, req);
  const charge: Charge = connected() ? await chargeRows(services, { auth, def, tier: grant.projection.tier, rows, signals: req.signals, crawl }) : { milli: 0, credits: 0, cacheHit: false };
  return { req, grant, index, body, rows, offset, charge, count };
}

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
