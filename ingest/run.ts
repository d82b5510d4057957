/**
 * The operator-facing operations behind `bintel ingest` and `bintel reindex`: they add the
 * source, the progress display, the error report and Ctrl-C handling around `load`.
 */
import { basename, resolve } from 'node:path';
import type { Config } from '../core/config.ts';
import { createEs, type Es } from '../core/adapters/es.ts';
import { csvFields, entity } from '../mappings/index.ts';
import type { IndexShape } from '../mappings/es-mapping.ts';
import type { Doc, EntityDef } from '../mappings/types.ts';
import { InputError, openCsv } from './csv-source.ts';
import { ErrorReport } from './error-report.ts';
import { liveIndex } from './indices.ts';
import { EXIT, LoadAborted, load, stageLoad, type LoadOptions, type LoadSummary, type StagedLoad } from './load.ts';
import { Progress } from './progress.ts';
import type { RawRow } from './transform.ts';
import { aliasName, sandboxNamespace } from '../core/names.ts';

export interface LoadFlags {
  sandbox?: boolean;
  batchSize?: number;
  concurrency?: number;
  shards?: number;
  replicas?: number;
  /** Progress output (default stderr); null for none. */
  progress?: NodeJS.WriteStream | null;
  /** The Elasticsearch client to load with (default: a new one for the configuration). */
  es?: Es;
  /** Stops the load as Ctrl-C does (alias unchanged, the new index deleted); SIGINT and SIGTERM still do. */
  signal?: AbortSignal;
  /** Called once the force-merge of the new index has started. */
  onMerge?: () => void;
  /** Called once the merge writing the lookalike graph of the (live) new index has started. */
  onVectorBuild?: () => void;
  /** Called once the alias has moved (the rows served), before the lookalike graph is written. */
  onServed?: (summary: LoadSummary) => void | Promise<void>;
}

export interface IngestFlags extends LoadFlags {
  errors?: string;
  ignoreUnknownColumns?: boolean;
  allowEmpty?: boolean;
  /** CSV parser: ours (default) or fast-csv's stream (the reference; slower). */
  parser?: 'bintel' | 'fast-csv';
}

const DEFAULTS = { batchSize: 2000, concurrency: 2 } as const;

export function namespaceFor(config: Config, sandbox?: boolean): string {
  return sandbox ? sandboxNamespace(config.namespace) : config.namespace;
}

/** The shape of a new index: the flags, else the configuration (BINTEL_SHARDS, BINTEL_REPLICAS). */
export function shapeOf(flags: LoadFlags, config: Pick<Config, 'shards' | 'replicas' | 'mergeSegments' | 'indexSort' | 'vectorBuild'>): IndexShape {
  return { shards: flags.shards ?? config.shards, replicas: flags.replicas ?? config.replicas, mergeSegments: config.mergeSegments, indexSort: config.indexSort, vectorBuild: config.vectorBuild };
}

function checkPositive(name: string, v: number | undefined): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new LoadAborted(`${name} must be a positive integer, got ${v}`, EXIT.usage);
}

/** Runs `fn` with SIGINT/SIGTERM (and `outer`, when given) turned into an abort signal. */
async function withInterrupts<T>(fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const ctl = new AbortController();
  const stop = () => ctl.abort();
  if (outer?.aborted) ctl.abort();
  outer?.addEventListener('abort', stop, { once: true });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await fn(ctl.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    outer?.removeEventListener('abort', stop);
  }
}

/** What differs between loading a file and rebuilding from the live index. */
export interface LoadRun {
  def: EntityDef;
  namespace: string;
  records: LoadOptions['records'];
  sourceLabel: string;
  report: ErrorReport;
  allowEmpty?: boolean;
  progressLabel: string;
  /** Share done after `rows` rows, for the progress line. */
  fraction: (rows: number) => number;
  /** See LoadOptions. */
  heapCeilingMb?: number;
  heapShare?: number;
  parentCacheEntries?: number;
  parentIndices?: LoadOptions['parentIndices'];
  parents?: LoadOptions['parents'];
  onCompleted?: LoadOptions['onCompleted'];
}

/** The options of `load` for a run (the progress counter is set through `onRows`). */
function loadOptions(config: Config, es: Es, flags: LoadFlags, run: LoadRun, signal: AbortSignal, onRows: (n: number) => void): LoadOptions {
  return {
    debugGc: config.debugGc,
    heapCeilingMb: run.heapCeilingMb,
    heapShare: run.heapShare,
    parentCacheEntries: run.parentCacheEntries,
    parentIndices: run.parentIndices,
    parents: run.parents,
    onCompleted: run.onCompleted,
    es,
    namespace: run.namespace,
    def: run.def,
    records: run.records,
    sourceLabel: run.sourceLabel,
    batchSize: flags.batchSize ?? DEFAULTS.batchSize,
    concurrency: flags.concurrency ?? DEFAULTS.concurrency,
    shape: shapeOf(flags, config),
    report: run.report,
    allowEmpty: run.allowEmpty,
    signal,
    onRows,
    onMerge: flags.onMerge,
    onServed: async (s) => {
      if (s.vectors === 'building' && flags.progress !== null) (flags.progress ?? process.stderr).write(`\n${s.entity}: ${s.read} rows served behind ${s.alias} after ${(s.servedMs / 1000).toFixed(1)} s; writing the lookalike graph (lookalikes exact and slower until it is ready)\n`);
      await flags.onServed?.(s);
    },
    onVectorBuild: flags.onVectorBuild,
    onRetry: (attempt, reason) => process.stderr.write(`\nretry ${attempt}: ${reason}\n`),
  };
}

/** Runs `fn` with the run's progress line and Ctrl-C handling. */
async function withProgress<T>(config: Config, es: Es, flags: LoadFlags, run: LoadRun, fn: (opts: LoadOptions) => Promise<T>): Promise<T> {
  let rows = 0;
  const progress = flags.progress === null ? null : new Progress(run.progressLabel, () => ({ rows, fraction: run.fraction(rows) }), flags.progress);
  progress?.begin();
  try {
    return await withInterrupts((signal) => fn(loadOptions(config, es, flags, run, signal, (n) => (rows = n))), flags.signal);
  } finally {
    progress?.end();
  }
}

/** Runs one load with progress and Ctrl-C handling; the summary names the error report when rows were rejected. */
export async function runLoad(config: Config, es: Es, flags: LoadFlags, run: LoadRun): Promise<LoadSummary & { report: string | null }> {
  const summary = await withProgress(config, es, flags, run, load);
  return { ...summary, report: run.report.rows ? run.report.path : null };
}

/** Writes and finishes a new version without serving it (see stageLoad), with progress and Ctrl-C handling. */
export async function runStage(config: Config, es: Es, flags: LoadFlags, run: LoadRun): Promise<StagedLoad & { report: string | null; shape: IndexShape }> {
  const staged = await withProgress(config, es, flags, run, stageLoad);
  return Object.assign(staged, { report: run.report.rows ? run.report.path : null, shape: shapeOf(flags, config) });
}

/** Loads a CSV file into a new version of a resource's index and swaps the alias. */
export async function ingestFile(config: Config, resource: string, file: string, flags: IngestFlags = {}): Promise<LoadSummary & { report: string | null }> {
  return withClient(config, flags, (es) => ingestWith(es, { config, resource, file, flags }));
}

/** Runs `fn` with the caller's client, or with one of its own that is closed afterwards. */
export async function withClient<T>(config: Config, flags: LoadFlags, fn: (es: Es) => Promise<T>): Promise<T> {
  if (flags.es) return fn(flags.es);
  const es = createEs(config);
  try {
    return await fn(es);
  } finally {
    await es.close();
  }
}

async function ingestWith(es: Es, { config, resource, file, flags }: { config: Config; resource: string; file: string; flags: IngestFlags }): Promise<LoadSummary & { report: string | null }> {
  const def = entity(resource);
  checkPositive('--batch-size', flags.batchSize);
  checkPositive('--concurrency', flags.concurrency);
  const path = resolve(file);
  const report = new ErrorReport(resolve(flags.errors ?? `${path}.errors.csv`));
  let source;
  try {
    source = await openCsv(path, csvFields(def), { ignoreUnknown: flags.ignoreUnknownColumns, parser: flags.parser });
  } catch (err) {
    if (err instanceof InputError) throw new LoadAborted(err.message, EXIT.inputRefused);
    throw err;
  }
  await report.reset();
  return runLoad(config, es, flags, {
    def,
    namespace: namespaceFor(config, flags.sandbox),
    records: source.records,
    sourceLabel: path,
    report,
    allowEmpty: flags.allowEmpty,
    progressLabel: `ingest ${def.name} ${basename(path)}`,
    fraction: () => source.bytesRead() / source.totalBytes,
  });
}

/** Reads every document of an index with a point in time and search_after, as raw rows, a page at a time. */
export async function* liveRows(es: Es, index: string, def: EntityDef, pageSize = 2000): AsyncGenerator<RawRow[]> {
  const includes = csvFields(def).map((f) => f.name);
  const pit = await es.openPointInTime({ index, keep_alive: '5m' });
  let pitId = pit.id;
  let after: unknown[] | undefined;
  let row = 0;
  try {
    while (true) {
      const res = await es.search<Doc>({
        pit: { id: pitId, keep_alive: '5m' },
        size: pageSize,
        sort: [{ _shard_doc: 'asc' }],
        _source: { includes },
        track_total_hits: false,
        ...(after ? { search_after: after as never } : {}),
      });
      pitId = res.pit_id ?? pitId;
      const hits = res.hits.hits;
      if (!hits.length) return;
      yield hits.map((h) => ({ row: ++row, line: 0, values: { ...(h._source ?? {}), id: h._id } }));
      after = hits[hits.length - 1].sort as unknown[];
    }
  } finally {
    await es.closePointInTime({ id: pitId }).catch(() => {});
  }
}

/**
 * Rebuilds a resource's index from its live index with the current definition (mapping,
 * derived fields, and joins against the current parents), then swaps the alias.
 */
export async function reindexResource(config: Config, resource: string, flags: LoadFlags = {}): Promise<LoadSummary & { report: string | null }> {
  return withClient(config, flags, (es) => reindexWith(es, { config, resource, flags }));
}

async function reindexWith(es: Es, { config, resource, flags }: { config: Config; resource: string; flags: LoadFlags }): Promise<LoadSummary & { report: string | null }> {
  const def = entity(resource);
  const ns = namespaceFor(config, flags.sandbox);
  const from = await liveIndex(es, ns, def.name);
  if (!from) throw new LoadAborted(`${aliasName(ns, def.name)} points at no index: load it with \`bintel ingest ${def.name} FILE\` first`, EXIT.inputRefused);
  const total = (await es.count({ index: from })).count;
  const report = new ErrorReport(resolve(`${aliasName(ns, def.name)}.reindex-errors.csv`));
  await report.reset();
  return runLoad(config, es, flags, {
    def,
    namespace: ns,
    records: liveRows(es, from, def),
    sourceLabel: `reindex of ${from}`,
    report,
    allowEmpty: true,
    progressLabel: `reindex ${def.name}`,
    fraction: (rows) => (total ? rows / total : 1),
  });
}
