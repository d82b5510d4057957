/**
 * One load: rows from a source → validate → join → bulk into a new versioned index →
 * finish (settings restored, refreshed, marked complete) → atomic alias swap → prune.
 * Any failure or abort drops the new index and leaves the alias where it was.
 */
import type { Es } from '../core/adapters/es.ts';
import { csvFields } from '../mappings/index.ts';
import type { IndexShape } from '../mappings/es-mapping.ts';
import type { EntityDef, EntityName } from '../mappings/types.ts';
import { BulkWriter } from './bulk.ts';
import { InputError, isBadRecord, type BadRecord } from './csv-source.ts';
import type { ErrorReport } from './error-report.ts';
import { buildVectorIndex, createLoadIndex, defersVectors, dropIndex, finishLoadIndex, keepLoaderAlive, markComplete, pruneOrphans, pruneVersions, StepAborted, swapAlias, type VectorStatus } from './indices.ts';
import { EsParentLookup } from './parents.ts';
import { heapGuard } from './memory.ts';
import { completeBatch, isRejected, prepareRow, type ParentLookup, type PreparedRow, type RawRow } from './transform.ts';
import { aliasName, newIndexName } from '../core/names.ts';

export interface LoadOptions {
  es: Es;
  namespace: string;
  def: EntityDef;
  /** Rows in batches (any size). */
  records: AsyncIterable<(RawRow | BadRecord)[]>;
  /** Recorded in the index metadata (a file path, or "reindex of <index>"). */
  sourceLabel: string;
  batchSize: number;
  concurrency: number;
  shape: IndexShape;
  report: ErrorReport;
  /** Log heap figures to stderr at each forced collection (BINTEL_DEBUG_GC). */
  debugGc?: boolean;
  /** Heap size above which the load collects between batches (ingest/memory.ts; default 128 MB). */
  heapCeilingMb?: number;
  /** Garbage let pile up above the live heap before a collection, as a share of it (ingest/memory.ts; default a half). */
  heapShare?: number;
  /** Parent documents the load caches (ingest/parents.ts; default 100,000). */
  parentCacheEntries?: number;
  /** Parent indices to join against instead of their aliases (the new versions of an import that switches several resources at once). */
  parentIndices?: Partial<Record<EntityName, string>>;
  /** The parent lookup of the joins, around the one reading Elasticsearch (default: that one). */
  parents?: (es: ParentLookup) => ParentLookup;
  /** Called with each piece of completed rows (joined, derived fields set) before they are written. */
  onCompleted?: (rows: readonly PreparedRow[]) => void;
  /** Accept a source with no rows (and swap to an empty index). */
  allowEmpty?: boolean;
  signal?: AbortSignal;
  onRows?: (read: number) => void;
  /** The force-merge of the new index has started (an abort from here on stops it: the index is deleted). */
  onMerge?: () => void;
  /** The alias has moved: the rows are served (the lookalike graph may follow: onVectorBuild). */
  onServed?: (summary: LoadSummary) => void | Promise<void>;
  /** The merge that writes the lookalike graph of the (live) index has started. */
  onVectorBuild?: () => void;
  onRetry?: (attempt: number, reason: string) => void;
}

export interface LoadSummary {
  entity: string;
  alias: string;
  index: string;
  previous: string | null;
  read: number;
  indexed: number;
  rejected: number;
  docs: number;
  pruned: string[];
  /** Unfinished versions whose load was gone (a SIGKILL), deleted before this load began. */
  orphans: string[];
  /** From the start to the end, the lookalike graph included. */
  elapsedMs: number;
  /** From the start until the alias moved (the rows served). */
  servedMs: number;
  /** The lookalike graph of the index: `building` when the load was interrupted while writing it (the merge goes on in Elasticsearch). */
  vectors: VectorStatus | null;
}

/**
 * Rows completed (joined, companions) and serialized together; the bulk writer gathers them into
 * requests of `batchSize`. Small, so that row objects die young: with 2,000 rows per piece they
 * outlived the young generation and the garbage collector's copying was a third of the CPU
 * (`npm run bench:transform -- --batch N`).
 */
const TRANSFORM_CHUNK = 100;

/** Exit codes of a load, shared by the CLI and its documentation. */
export const EXIT = { ok: 0, usage: 1, inputRefused: 2, aborted: 3, interrupted: 130 } as const;

export class LoadAborted extends Error {
  /** `served`: the alias had already moved to the new index (an interrupt while its lookalike graph was built). */
  constructor(message: string, readonly exitCode: number, readonly served = false) {
    super(message);
  }
}

/**
 * A load whose new index is written and finished but not yet served: still marked unfinished
 * with this process's heartbeat (so a load killed before `serve` leaves an orphan that the next
 * load deletes), the alias untouched. `markComplete`, then swapAlias (swapAliases for several
 * resources at once) and servedSummary serve it; `drop` deletes it.
 */
export interface StagedLoad {
  def: EntityDef;
  namespace: string;
  index: string;
  read: number;
  indexed: number;
  rejected: number;
  orphans: string[];
  started: number;
  /** Stops the heartbeat and records the index as complete (rows, source, time). */
  markComplete: () => Promise<void>;
  /** Stops the heartbeat and deletes the index. */
  drop: () => Promise<void>;
}

/** How a failure inside a load is reported (LoadAborted, alias unchanged). */
function asAborted(err: unknown, interrupted: () => LoadAborted): LoadAborted {
  if (err instanceof LoadAborted) return err;
  if (err instanceof StepAborted) return interrupted();
  if (err instanceof InputError) return new LoadAborted(err.message, EXIT.aborted);
  return new LoadAborted(err instanceof Error ? err.message : String(err), EXIT.aborted);
}

/**
 * Writes and finishes a new version without serving it (see StagedLoad); throws LoadAborted
 * (the new index dropped) on any failure.
 */
export async function stageLoad(opts: LoadOptions): Promise<StagedLoad> {
  const { es, namespace: ns, def, report } = opts;
  const started = Date.now();
  const fields = csvFields(def);
  const esLookup = new EsParentLookup(es, ns, opts.parentCacheEntries, opts.parentIndices);
  const lookup = opts.parents ? opts.parents(esLookup) : esLookup;
  const index = newIndexName(ns, def.name);
  let read = 0;
  let indexed = 0;
  const writer = new BulkWriter({
    es,
    index,
    concurrency: opts.concurrency,
    batchSize: opts.batchSize,
    onIndexed: (n) => (indexed += n),
    onRejected: (r) => report.add(r.row, r.line, r.issues),
    onRetry: opts.onRetry,
  });
  let batch: PreparedRow[] = [];
  const chunk = Math.min(opts.batchSize, TRANSFORM_CHUNK);
  const keepMemoryFlat = heapGuard({ debug: opts.debugGc, ceilingMb: opts.heapCeilingMb, share: opts.heapShare });
  const interrupted = () => new LoadAborted(`interrupted after reading ${read} rows (${indexed} indexed into ${index}, which is dropped; ${report.rows} rejected)`, EXIT.interrupted);
  const flushBatch = async () => {
    keepMemoryFlat();
    const { done, rejected } = await completeBatch(def, batch, lookup);
    batch = [];
    for (const r of rejected) report.add(r.row, r.line, r.issues);
    opts.onCompleted?.(done);
    await writer.add(done);
  };

  const orphans = await pruneOrphans(es, ns, def);
  await createLoadIndex(es, index, def, opts.shape);
  const stopHeartbeat = keepLoaderAlive(es, index, def);
  try {
    for await (const recs of opts.records) {
      if (opts.signal?.aborted) throw interrupted();
      for (const rec of recs) {
        read++;
        if (isBadRecord(rec)) {
          report.add(rec.row, rec.line, [{ field: rec.field, issue: rec.issue, expected: rec.expected }]);
          continue;
        }
        const r = prepareRow(def, rec, fields);
        if (isRejected(r)) report.add(r.row, r.line, r.issues);
        else if (batch.push(r) >= chunk) await flushBatch();
      }
      opts.onRows?.(read);
    }
    if (batch.length) await flushBatch();
    await writer.flush();
    if (opts.signal?.aborted) throw interrupted();
    if (read === 0 && !opts.allowEmpty) throw new LoadAborted('no data rows (header only): nothing loaded', EXIT.inputRefused);
    if (indexed === 0 && read > 0 && !opts.allowEmpty) throw new LoadAborted(`all ${read} rows were rejected: nothing loaded (see ${report.path})`, EXIT.aborted);
    if (read !== indexed + report.rows) throw new LoadAborted(`row accounting mismatch: read ${read}, indexed ${indexed}, rejected ${report.rows}`, EXIT.aborted);
    await finishLoadIndex(es, index, def, { shape: opts.shape, rows: indexed, source: opts.sourceLabel, signal: opts.signal, onMerge: opts.onMerge, complete: false });
    if (opts.signal?.aborted) throw interrupted();
  } catch (err) {
    await stopHeartbeat();
    await dropIndex(es, index).catch(() => {});
    throw asAborted(err, interrupted);
  } finally {
    await report.close();
  }
  return {
    def,
    namespace: ns,
    index,
    read,
    indexed,
    rejected: report.rows,
    orphans,
    started,
    markComplete: async () => {
      await stopHeartbeat();
      await markComplete(es, index, def, { shape: opts.shape, rows: indexed, source: opts.sourceLabel });
    },
    drop: async () => {
      await stopHeartbeat();
      await dropIndex(es, index).catch(() => {});
    },
  };
}

/** After a staged load's alias moved: prunes old versions and sums it up (the lookalike graph still to write when `building`). */
export async function servedSummary(es: Es, staged: StagedLoad, previous: string | null, shape: IndexShape): Promise<LoadSummary> {
  const { def, index, namespace: ns } = staged;
  const pruned = await pruneVersions(es, ns, def);
  const count = await es.count({ index });
  return {
    entity: def.name,
    alias: aliasName(ns, def.name),
    index,
    previous,
    read: staged.read,
    indexed: staged.indexed,
    rejected: staged.rejected,
    docs: count.count,
    pruned,
    orphans: staged.orphans,
    elapsedMs: Date.now() - staged.started,
    servedMs: Date.now() - staged.started,
    vectors: defersVectors(def, shape) ? 'building' : def.lookalike ? 'ready' : null,
  };
}

/** Writes the lookalike graph of a served index when its summary says `building` (see buildVectorIndex). */
export async function finishServed(es: Es, served: LoadSummary, def: EntityDef, shape: IndexShape, started: number, opts: { signal?: AbortSignal; onVectorBuild?: () => void } = {}): Promise<LoadSummary> {
  if (served.vectors !== 'building') return served;
  const { index, indexed } = served;
  // The rows are served; the lookalike graph follows. The index is live: an interrupt only stops the wait.
  try {
    await buildVectorIndex(es, index, def, shape, { signal: opts.signal, onStarted: opts.onVectorBuild });
  } catch (err) {
    if (err instanceof StepAborted) throw new LoadAborted(`interrupted while the lookalike graph of ${index} was being built: ${index} is live behind ${served.alias} (${indexed} rows); Elasticsearch goes on merging it, and lookalikes score every row (exact, slower) with meta.index_status "building" until \`bintel ingest\` or \`bintel reindex\` loads it again`, EXIT.interrupted, true);
    throw new LoadAborted(`building the lookalike graph of ${index} failed (${err instanceof Error ? err.message : String(err)}): ${index} is live behind ${served.alias}; lookalikes score every row (exact, slower)`, EXIT.aborted, true);
  }
  return { ...served, vectors: 'ready', elapsedMs: Date.now() - started };
}

/** Runs one load; throws LoadAborted (alias unchanged, new index dropped) on any failure. */
export async function load(opts: LoadOptions): Promise<LoadSummary> {
  const { es, namespace: ns, def } = opts;
  const staged = await stageLoad(opts);
  let served: LoadSummary;
  try {
    await staged.markComplete();
    if (opts.signal?.aborted) throw new StepAborted('interrupted');
    const previous = await swapAlias(es, ns, def.name, staged.index);
    served = await servedSummary(es, staged, previous, opts.shape);
  } catch (err) {
    await staged.drop();
    throw asAborted(err, () => new LoadAborted(`interrupted after reading ${staged.read} rows (${staged.indexed} indexed into ${staged.index}, which is dropped; ${staged.rejected} rejected)`, EXIT.interrupted));
  }
  await opts.onServed?.(served);
  return finishServed(es, served, def, opts.shape, staged.started, { signal: opts.signal, onVectorBuild: opts.onVectorBuild });
}
