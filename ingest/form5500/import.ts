/**
 * `bintel import form5500 DIR_OR_ZIP...`: read every dataset file of the inputs (streaming,
 * a progress line per file), resolve filings, contracts and broker lines into the four
 * resources, then load each through the existing ingest into a new version (the validation
 * report), parents first, and switch the four aliases in one request.
 */
import { utcDay } from '../../core/clock.ts';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../../core/config.ts';
import { ENTITY_NAMES, entity } from '../../mappings/index.ts';
import type { Doc, EntityName } from '../../mappings/types.ts';
import { ErrorReport } from '../error-report.ts';
import { heapGuard } from '../memory.ts';
import { EXIT, finishServed, LoadAborted, servedSummary, type LoadSummary } from '../load.ts';
import { liveIndex, swapAliases } from '../indices.ts';
import type { Es } from '../../core/adapters/es.ts';
import { namespaceFor, runStage, withClient, type LoadFlags, type LoadRun } from '../run.ts';
import { RecordedParents } from '../recorded-parents.ts';
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
  /** Switch to a resource with no rows (else refused: an import of the short-form file alone would empty brokers and offices). */
  allowEmpty?: boolean;
  /** Replace rows that other sources loaded (a live index with rows whose source_record is not form5500:...; else refused). */
  replaceOtherSources?: boolean;
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
  /** Each resource's load; `stageMs` is its own loading and finishing, before the switch. */
  loads: (LoadSummary & { report: string | null; stageMs: number })[];
  readMs: number;
  buildMs: number;
  /** From the first load's start to the last lookalike graph written (the loads overlap in their summaries' elapsedMs: each runs until the one switch). */
  loadMs: number;
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
  await withClient(config, flags, (es) => refuseOtherSources(es, namespaceFor(config, flags.sandbox), flags.replaceOtherSources === true));
  const prefix = resolve(flags.errors ?? 'form5500-import');
  const damaged = damagedWriter(`${prefix}.damaged.csv`);
  const c = emptyCollected();
  try {
    const readStart = Date.now();
    // Rows are garbage as soon as they are added: a full collection when the heap passes its
    // ceiling keeps RSS near the live set's size (ingest/memory.ts), as the load itself does.
    // The live heap stays under 50 MB at a full year (the rest is in typed arrays and on disk),
    // so the ceiling is half the load's default.
    const keepMemoryFlat = heapGuard({ debug: config.debugGc, ceilingMb: HEAP_CEILING_MB, share: HEAP_SHARE });
    const files = await readAll(found.files, c, damaged.add, log, keepMemoryFlat).catch((err: Error) => {
      throw err instanceof MissingColumnsError ? new LoadAborted(err.message, EXIT.inputRefused) : err;
    });
    c.endReading(keepMemoryFlat);
    const damagedReport = await damaged.close();
    const readMs = Date.now() - readStart;
    const buildStart = Date.now();
    const built = buildAll(c, flags.today ?? utcDay(), keepMemoryFlat);
    const buildMs = Date.now() - buildStart;
    const n = (x: number) => x.toLocaleString('en-US');
    log(
      `resolved ${n(c.n)} plan years of ${n(built.counts.sponsors)} sponsors (${n(c.counts.superseded)} superseded by a later filing, ${n(c.counts.dfe)} DFE filings skipped, ` +
        `${n(built.counts.stalePlans)} plans not filed since ${built.counts.staleSince} left out${built.counts.staleSponsors ? `, with ${n(built.counts.staleSponsors)} sponsors that have nothing newer` : ''}, ` +
        `${n(c.counts.pensionContracts)} pension contracts apart from welfare${c.counts.duplicateScheduleRows ? `, ${n(c.counts.duplicateScheduleRows)} schedule rows read twice counted once` : ''}): ` +
        `${n(built.counts.brokers)} brokers, ${n(built.counts.offices)} broker-offices, ${n(built.counts.sponsors)} companies; contacts as they load`,
    );
    if (!flags.allowEmpty) refuseEmpty(built);
    const loadStart = Date.now();
    const loads = await withClient(config, flags, (es) => loadAll(config, es, flags, built, prefix, log));
    return { files, skipped: found.skipped, damagedReport, counts: { ...c.counts, ...built.counts }, loads, readMs, buildMs, loadMs: Date.now() - loadStart };
  } finally {
    c.close();
  }
}

/** Heap ceiling of the import's reading, resolving and loads (ingest/memory.ts). */
const HEAP_CEILING_MB = 64;
/**
 * Garbage let pile up above the live heap before a collection: a quarter of it (a load's half).
 * The import's live heap is large while it loads (the record of parents, the strings the rows
 * are built from), and its peak RSS was the personnel load's (481 MiB at a full year, 2026-11-28);
 * Elasticsearch, not this process's CPU, sets the load's pace.
 */
const HEAP_SHARE = 0.25;
/**
 * Parents cached by the import's loads when they read Elasticsearch (the fallback of the record
 * of parents, ingest/recorded-parents.ts). A small cache: 100,000 documents held over 100 MB while
 * personnel loaded (bench:form5500 at scale 0.2: RSS 193 → 320 MB).
 */
const PARENT_CACHE_ENTRIES = 2_000;

/** Why a resource built from these inputs is empty, for the refusal. */
const EMPTY_BECAUSE: Record<EntityName, string> = {
  brokers: 'no F_SCH_A_PART1 lines of kept filings',
  'broker-offices': 'no F_SCH_A_PART1 lines with an address of kept filings',
  companies: 'no F_5500 or F_5500_SF filings kept',
  personnel: 'no signer, administrator or other contact on the kept filings',
};

function emptyRefusal(names: readonly EntityName[], counts: Partial<Record<EntityName, number>>): LoadAborted {
  const lines = names.map((n) => `  ${n}: 0 rows (${EMPTY_BECAUSE[n]})`);
  return new LoadAborted(`the import would switch to empty resources, nothing switched:\n${lines.join('\n')}\n(${Object.entries(counts).map(([n, k]) => `${n} ${k}`).join(', ')} built; import every dataset of the year, F_5500, F_5500_SF, F_SCH_A and F_SCH_A_PART1, or pass --allow-empty to switch to them anyway)`, EXIT.inputRefused);
}

/** Refuses (before any load) when a resource whose row count is known in advance would be empty. */
function refuseEmpty(built: Built): void {
  const counts: Partial<Record<EntityName, number>> = {};
  for (const n of ENTITY_NAMES) if (built[n].count !== null) counts[n] = built[n].count as number;
  const empty = ENTITY_NAMES.filter((n) => counts[n] === 0);
  if (empty.length) throw emptyRefusal(empty, counts);
}

/** Rows of a live index that no Form 5500 import loaded (their source_record is not form5500:...). */
const OTHER_SOURCES = { bool: { must_not: { prefix: { source_record: 'form5500:' } } } };

/** Refuses when a live index holds rows of other sources (a CSV ingest), naming how many would go. */
async function refuseOtherSources(es: Es, ns: string, replace: boolean): Promise<void> {
  if (replace) return;
  const found: string[] = [];
  for (const name of ENTITY_NAMES) {
    const live = await liveIndex(es, ns, name);
    if (!live) continue;
    const n = (await es.count({ index: live, query: OTHER_SOURCES })).count;
    if (n) found.push(`  ${name}: ${n.toLocaleString('en-US')} rows in ${live} were not loaded by a Form 5500 import (their source_record does not start with form5500:)`);
  }
  if (found.length) throw new LoadAborted(`the import would replace rows that other sources loaded, nothing imported:\n${found.join('\n')}\n(pass --replace-other-sources to replace them)`, EXIT.inputRefused);
}

/**
 * Loads the four resources into new versions, parents first, the children joining against the
 * parents' new versions; then moves the four aliases in one `_aliases` request, so the resources
 * are never served from two imports at once. Any failure before that drops every new version
 * (the aliases unchanged). The lookalike graphs are written after the switch.
 */
async function loadAll(config: Config, es: Es, flags: ImportFlags, built: Built, prefix: string, log: (line: string) => void): Promise<(LoadSummary & { report: string | null; stageMs: number })[]> {
  const staged: (Awaited<ReturnType<typeof runStage>> & { stageMs?: number })[] = [];
  const parentIndices: Partial<Record<EntityName, string>> = {};
  const recorded = new RecordedParents();
  try {
    for (const name of ENTITY_NAMES) {
      const parent = ENTITY_NAMES.some((n) => entity(n).joins.some((j) => j.entity === name));
      const t0 = Date.now();
      const s = await stageOne(config, es, flags, name, built[name], prefix, { ...parentIndices }, {
        parents: (fallback) => recorded.lookup(fallback),
        onCompleted: parent ? recorded.recorder(name, name === 'companies') : undefined,
      });
      staged.push(Object.assign(s, { stageMs: Date.now() - t0 }));
      parentIndices[name] = s.index;
      // Rows Elasticsearch rejected are in the record but not in the index: their children read the index.
      if (s.rejected) recorded.forget(name);
    }
    const empty = staged.filter((s) => s.indexed === 0).map((s) => s.def.name);
    if (empty.length && !flags.allowEmpty) throw emptyRefusal(empty, Object.fromEntries(staged.map((s) => [s.def.name, s.indexed])));
    if (flags.signal?.aborted) throw new LoadAborted('interrupted before the switch: the new versions are dropped', EXIT.interrupted);
    for (const s of staged) await s.markComplete();
  } catch (err) {
    for (const s of staged) await s.drop();
    throw err instanceof LoadAborted ? err : new LoadAborted(err instanceof Error ? err.message : String(err), EXIT.aborted);
  } finally {
    log(`joined ${recorded.stats.recorded.toLocaleString('en-US')} parents from the import's record, ${recorded.stats.fallback.toLocaleString('en-US')} from Elasticsearch`);
    recorded.close();
  }
  let previous: Map<EntityName, string | null>;
  try {
    previous = await swapAliases(es, namespaceFor(config, flags.sandbox), staged.map((s) => ({ entity: s.def.name, index: s.index })));
  } catch (err) {
    for (const s of staged) await s.drop();
    throw new LoadAborted(`switching the aliases failed, nothing switched: ${err instanceof Error ? err.message : String(err)}`, EXIT.aborted);
  }
  const out: (LoadSummary & { report: string | null; stageMs: number })[] = [];
  for (const s of staged) {
    const served = await servedSummary(es, s, previous.get(s.def.name) ?? null, s.shape);
    await flags.onServed?.(served);
    out.push({ ...(await finishServed(es, served, s.def, s.shape, s.started, { signal: flags.signal, onVectorBuild: flags.onVectorBuild })), report: s.report, stageMs: s.stageMs ?? 0 });
  }
  return out;
}

async function stageOne(config: Config, es: Es, flags: ImportFlags, name: EntityName, built: BuiltRows, prefix: string, parentIndices: Partial<Record<EntityName, string>>, joins: Pick<LoadRun, 'parents' | 'onCompleted'>) {
  const report = new ErrorReport(`${prefix}.${name}.errors.csv`);
  await report.reset();
  return runStage(config, es, flags, {
    def: entity(name),
    namespace: namespaceFor(config, flags.sandbox),
    records: rowsOf(built.rows()),
    sourceLabel: `form5500 import (${built.count === null ? '' : `${built.count} `}${name})`,
    report,
    allowEmpty: true,
    progressLabel: `import form5500 ${name}`,
    fraction: (rows) => (built.count === null ? built.done() : built.count ? rows / built.count : 1),
    heapCeilingMb: HEAP_CEILING_MB,
    heapShare: HEAP_SHARE,
    parentCacheEntries: PARENT_CACHE_ENTRIES,
    parentIndices,
    ...joins,
  });
}
