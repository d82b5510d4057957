/**
 * `bintel import form5500 DIR_OR_ZIP...`: read every dataset file of the inputs (streaming,
 * a progress line per file), resolve filings, contracts and broker lines into the four
 * resources, then load each through the existing ingest (a new version, one alias swap per
 * resource, the validation report), parents first.
 */
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../../core/config.ts';
import { ENTITY_NAMES, entity } from '../../mappings/index.ts';
import type { Doc, EntityName } from '../../mappings/types.ts';
import { ErrorReport } from '../error-report.ts';
import { heapGuard } from '../memory.ts';
import { EXIT, LoadAborted, type LoadSummary } from '../load.ts';
import { namespaceFor, runLoad, withClient, type LoadFlags } from '../run.ts';
import type { RawRow } from '../transform.ts';
import { buildAll, type Built, type BuiltRows } from './build.ts';
import { ADD, emptyCollected, type Collected } from './collect.ts';
import { DATASETS } from './datasets.ts';
import { checkColumns, findDatasetFiles, MissingColumnsError, readDataset, type DamagedRow, type DatasetFile } from './read.ts';

export interface ImportFlags extends LoadFlags {
  /** Prefix of the report files (default ./form5500-import). */
  errors?: string;
  /** Day the renewal window is measured from (YYYY-MM-DD; default today). */
  today?: string;
  /** One line per file read and per resource loaded (default stderr); null for none. */
  log?: ((line: string) => void) | null;
}

export interface FileSummary {
  file: string;
  dataset: string;
  year: number;
  rows: number;
  damaged: number;
  ms: number;
}

export interface ImportSummary {
  files: FileSummary[];
  skipped: string[];
  damagedReport: string | null;
  counts: Collected['counts'] & Built['counts'];
  loads: (LoadSummary & { report: string | null })[];
  readMs: number;
  buildMs: number;
}

/** Batches of raw rows for the load step, from built documents as they are produced. */
async function* rowsOf(docs: Iterable<Doc>, batch = 500): AsyncGenerator<RawRow[]> {
  let out: RawRow[] = [];
  let row = 0;
  for (const values of docs) {
    out.push({ row: ++row, line: 0, values });
    if (out.length === batch) {
      yield out;
      out = [];
    }
  }
  if (out.length) yield out;
}

/** Reads the files in dataset order (filings before their schedules), into the collected state. */
async function readAll(files: DatasetFile[], c: Collected, onDamaged: (d: DamagedRow) => void, log: (line: string) => void, keepMemoryFlat: () => void): Promise<FileSummary[]> {
  const order = [...files].sort((a, b) => DATASETS.indexOf(a.dataset) - DATASETS.indexOf(b.dataset) || a.year - b.year);
  const out: FileSummary[] = [];
  for (const file of order) {
    const started = Date.now();
    let rows = 0;
    let damaged = 0;
    const add = ADD[file.dataset];
    for await (const batch of readDataset(file, (d) => (damaged++, onDamaged(d)))) {
      keepMemoryFlat();
      for (const r of batch) add(c, file.dataset, file.year, r.facts, file.label);
      rows += batch.length;
    }
    const ms = Date.now() - started;
    out.push({ file: file.label, dataset: file.dataset, year: file.year, rows, damaged, ms });
    log(`read ${file.dataset} ${file.year}: ${rows.toLocaleString('en-US')} rows${damaged ? `, ${damaged} damaged (reported)` : ''}, ${(ms / 1000).toFixed(1)} s, ${Math.round(rows / Math.max(ms / 1000, 0.001)).toLocaleString('en-US')} rows/s  ${file.label}`);
  }
  return out;
}

/** A CSV of damaged rows (file, line, issue), created on the first one. */
function damagedWriter(path: string): { add: (d: DamagedRow) => void; close: () => Promise<string | null> } {
  let out: ReturnType<typeof createWriteStream> | null = null;
  const cell = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  return {
    add(d) {
      if (!out) {
        out = createWriteStream(path);
        out.write('file,line,issue\n');
      }
      out.write(`${cell(d.file)},${d.line},${cell(d.issue)}\n`);
    },
    close: () => new Promise((done) => (out ? out.end(() => done(path)) : done(null))),
  };
}

export async function importForm5500(config: Config, inputs: readonly string[], flags: ImportFlags = {}): Promise<ImportSummary> {
  if (flags.today !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.today)) throw new LoadAborted(`--today must be a date YYYY-MM-DD, got "${flags.today}"`, EXIT.usage);
  const log = flags.log === null ? () => {} : (flags.log ?? ((l: string) => process.stderr.write(`${l}\n`)));
  const found = await findDatasetFiles(inputs).catch((err: Error) => {
    throw new LoadAborted(err.message, EXIT.inputRefused);
  });
  for (const s of found.skipped) log(`skipped (not one of F_5500, F_5500_SF, F_SCH_A, F_SCH_A_PART1): ${s}`);
  for (const d of found.duplicates) log(`skipped (a copy of ${d.kept}, read once): ${d.label}`);
  if (!found.files.length) throw new LoadAborted(`no Form 5500 dataset files in ${inputs.join(', ')}`, EXIT.inputRefused);
  // Every header before any row: a file lacking a needed column stops the import before hours of reading.
  const lacking: string[] = [];
  for (const f of found.files) {
    const missing = await checkColumns(f);
    if (missing.length) lacking.push(new MissingColumnsError(f.label, f.dataset, f.year, missing).message);
  }
  if (lacking.length) throw new LoadAborted(`columns missing, nothing imported:\n${lacking.join('\n')}`, EXIT.inputRefused);
  const prefix = resolve(flags.errors ?? 'form5500-import');
  const damaged = damagedWriter(`${prefix}.damaged.csv`);
  const c = emptyCollected();
  try {
    const readStart = Date.now();
    // Rows are garbage as soon as they are added: a full collection when the heap passes its
    // ceiling keeps RSS near the live set's size (ingest/memory.ts), as the load itself does.
    // The live heap stays under 50 MB at a full year (the rest is in typed arrays and on disk),
    // so the ceiling is half the load's default.
    const keepMemoryFlat = heapGuard({ debug: config.debugGc, ceilingMb: HEAP_CEILING_MB });
    const files = await readAll(found.files, c, damaged.add, log, keepMemoryFlat).catch((err: Error) => {
      throw err instanceof MissingColumnsError ? new LoadAborted(err.message, EXIT.inputRefused) : err;
    });
    c.endReading();
    const damagedReport = await damaged.close();
    const readMs = Date.now() - readStart;
    const buildStart = Date.now();
    const built = buildAll(c, flags.today ?? new Date().toISOString().slice(0, 10), keepMemoryFlat);
    const buildMs = Date.now() - buildStart;
    const n = (x: number) => x.toLocaleString('en-US');
    log(
      `resolved ${n(c.n)} plan years of ${n(built.counts.sponsors)} sponsors (${n(c.counts.superseded)} superseded by a later filing, ${n(c.counts.dfe)} DFE filings skipped, ` +
        `${n(built.counts.stalePlans)} plans not filed since ${built.counts.staleSince} left out${built.counts.staleSponsors ? `, with ${n(built.counts.staleSponsors)} sponsors that have nothing newer` : ''}, ` +
        `${n(c.counts.pensionContracts)} pension contracts apart from welfare${c.counts.duplicateScheduleRows ? `, ${n(c.counts.duplicateScheduleRows)} schedule rows read twice counted once` : ''}): ` +
        `${n(built.counts.brokers)} brokers, ${n(built.counts.offices)} broker-offices, ${n(built.counts.sponsors)} companies; contacts as they load`,
    );
    const loads = await withClient(config, flags, async (es) => {
      const out: (LoadSummary & { report: string | null })[] = [];
      for (const name of ENTITY_NAMES) out.push(await loadOne(config, es, flags, name, built[name], prefix));
      return out;
    });
    return { files, skipped: found.skipped, damagedReport, counts: { ...c.counts, ...built.counts }, loads, readMs, buildMs };
  } finally {
    c.close();
  }
}

/** Heap ceiling of the import's reading, resolving and loads (ingest/memory.ts). */
const HEAP_CEILING_MB = 64;
/**
 * Parents cached by the import's loads. Contacts come sponsor by sponsor (a company's together),
 * so a small cache hits as often as the plain ingest's 100,000 documents, which held over 100 MB
 * while personnel loaded (bench:form5500 at scale 0.2: RSS 193 → 320 MB); offices miss more
 * (a few thousand firms, in no order) at one _mget per batch.
 */
const PARENT_CACHE_ENTRIES = 2_000;

async function loadOne(config: Config, es: Parameters<typeof runLoad>[1], flags: ImportFlags, name: EntityName, built: BuiltRows, prefix: string) {
  const report = new ErrorReport(`${prefix}.${name}.errors.csv`);
  await report.reset();
  return runLoad(config, es, flags, {
    def: entity(name),
    namespace: namespaceFor(config, flags.sandbox),
    records: rowsOf(built.rows()),
    sourceLabel: `form5500 import (${built.count === null ? '' : `${built.count} `}${name})`,
    report,
    allowEmpty: true,
    progressLabel: `import form5500 ${name}`,
    fraction: (rows) => (built.count === null ? built.done() : built.count ? rows / built.count : 1),
    heapCeilingMb: HEAP_CEILING_MB,
    parentCacheEntries: PARENT_CACHE_ENTRIES,
  });
}
