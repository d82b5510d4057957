/**
 * The ingest transform's CPU per company row, stage by stage, in this process and without
 * Elasticsearch: `npm run bench:transform [-- --rows N --rounds R]`.
 *
 * Generates N companies (and the offices and brokers they join to), turns the parents into
 * documents through the same transform, keeps them in an in-memory table, then times R rounds of
 * each stage over every company row, streamed in batches as the CLI does: (1) CSV read and parse, (2) prepareRow (coerce, validate,
 * id), (3) completeBatch (joins, derived fields, companions, lookalike vector), (4) the `_bulk`
 * NDJSON. Prints CPU µs per row of each stage (the best round of each: JIT warm, least disturbed;
 * garbage collection lands in whichever stage it interrupts). Issue 16's goal 1 is 30 µs per row for the whole CLI; this says where the time goes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from '../ingest/generate/index.ts';
import { openCsv } from '../ingest/csv-source.ts';
import { completeBatch, isRejected, prepareRow, type ParentLookup, type PreparedRow, type RawRow } from '../ingest/transform.ts';
import { toNdjson } from '../ingest/bulk.ts';
import { csvFields, entity, ENTITY_NAMES } from '../mappings/index.ts';
import type { Doc, EntityName } from '../mappings/types.ts';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '3' }, batch: { type: 'string', default: '2000' } } });
const rows = Number(args.rows);
const batchSize = Number(args.batch);

/** Parents by entity and id, projected once per (entity, fields) and kept, as EsParentLookup's cache does. */
class TableLookup implements ParentLookup {
  readonly docs = new Map<EntityName, Map<string, Doc>>();
  private readonly projected = new Map<string, Map<string, Doc>>();
  async fetch(e: EntityName, ids: readonly string[], fields: readonly string[]): Promise<Map<string, Doc>> {
    const scope = `${e}|${fields.join(',')}`;
    let cache = this.projected.get(scope);
    if (!cache) this.projected.set(scope, (cache = new Map()));
    const table = this.docs.get(e) ?? new Map<string, Doc>();
    const out = new Map<string, Doc>();
    for (const id of ids) {
      let p = cache.get(id);
      const d = p ? null : table.get(id);
      if (d) cache.set(id, (p = Object.fromEntries(fields.map((f) => [f, d[f]]))));
      if (p) out.set(id, p);
    }
    return out;
  }
}

async function readAll(path: string, name: EntityName): Promise<RawRow[]> {
  const out: RawRow[] = [];
  const src = await openCsv(path, csvFields(entity(name)));
  for await (const recs of src.records) for (const r of recs) if (!('issue' in r)) out.push(r);
  return out;
}

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bintel-transform-'));
  try {
    const gen = await generate({ out: dir, companies: rows, personnel: 0, brokerOffices: Math.max(50, Math.round(rows / 5)), brokers: Math.max(20, Math.round(rows / 40)), seed: 7 });
    const lookup = new TableLookup();
    for (const name of ENTITY_NAMES.slice(0, ENTITY_NAMES.indexOf('companies'))) {
      const def = entity(name);
      const prepared = (await readAll(gen.files[name], name)).map((r) => prepareRow(def, r, csvFields(def))).filter((r): r is PreparedRow => !isRejected(r));
      const { done } = await completeBatch(def, prepared, lookup);
      lookup.docs.set(name, new Map(done.map((r) => [r.id, r.doc])));
    }
    const def = entity('companies');
    const fields = csvFields(def);
    const best = { parse: Infinity, prepare: Infinity, complete: Infinity, serialize: Infinity };
    let bytes = 0;
    for (let round = 0; round < Number(args.rounds); round++) {
      // Streamed as the CLI does: a batch of rows read, then prepared, completed and serialized, then dropped.
      const spent = { parse: 0, prepare: 0, complete: 0, serialize: 0 };
      bytes = 0;
      let batch: RawRow[] = [];
      const flush = async () => {
        let t = cpu();
        const prepared = batch.map((r) => prepareRow(def, r, fields)).filter((r): r is PreparedRow => !isRejected(r));
        spent.prepare += cpu() - t;
        t = cpu();
        const { done } = await completeBatch(def, prepared, lookup);
        spent.complete += cpu() - t;
        t = cpu();
        bytes += toNdjson(done).length;
        spent.serialize += cpu() - t;
        batch = [];
      };
      const t0 = cpu();
      const src = await openCsv(gen.files.companies, fields);
      for await (const recs of src.records) {
        for (const r of recs) if (!('issue' in r) && batch.push(r) >= batchSize) await flush();
      }
      if (batch.length) await flush();
      spent.parse = cpu() - t0 - spent.prepare - spent.complete - spent.serialize;
      for (const k of Object.keys(best) as (keyof typeof best)[]) best[k] = Math.min(best[k], spent[k]);
    }
    const per = (us: number) => (us / rows).toFixed(1);
    const total = best.parse + best.prepare + best.complete + best.serialize;
    process.stdout.write(`\ntransform CPU per company row (${rows} rows, best of ${args.rounds} rounds, ${(bytes / rows).toFixed(0)} NDJSON bytes per row):\n\n| stage | µs per row |\n|---|---|\n`);
    for (const [k, v] of Object.entries(best)) process.stdout.write(`| ${k} | ${per(v)} |\n`);
    process.stdout.write(`| total | ${per(total)} |\n`);
    process.stdout.write(`${JSON.stringify({ rows, us_per_row: Object.fromEntries(Object.entries(best).map(([k, v]) => [k, Number(per(v))])), total: Number(per(total)) })}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
