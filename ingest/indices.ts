/**
 * Versioned indices behind aliases. Every load writes a new index
 * `<ns>-<entity>-v<timestamp>`; the alias `<ns>-<entity>` moves to it atomically once it is
 * complete, and the previous complete index is kept for rollback. Queries only ever see
 * complete indices.
 *
 * An unfinished index names the load that writes it (`_meta.bintel.loader`: host, pid and a
 * heartbeat renewed every LOADER_HEARTBEAT_MS). A load starts by deleting the unfinished indices
 * of its resource whose loader is gone (a process of this host that no longer exists, or a
 * heartbeat older than ORPHAN_AFTER_MS): what a SIGKILL leaves behind, with the force-merge it
 * may still be running, which would hold the node's one merge slot. Never another live load's.
 */
import { hostname } from 'node:os';
import type { Es } from '../core/adapters/es.ts';
import { aliasName, isVersionOf, versionPattern } from '../core/names.ts';
import { esMappings, esSettings, LOOKALIKE_FLAT, mappingHash, vectorMapping, type IndexShape } from '../mappings/es-mapping.ts';
import { LOOKALIKE_FIELD } from '../mappings/lookalike.ts';
import type { EntityDef, EntityName } from '../mappings/types.ts';
import { bintelMeta, onlyBintelMeta, vectorsOf, type BintelMeta, type Loader, type VectorStatus } from '../mappings/index-meta.ts';

export type { Loader, VectorStatus };


export interface IndexVersion {
  index: string;
  live: boolean;
  complete: boolean;
  docs: number;
  sizeBytes: number;
  createdAt: string;
  mappingHash: string | null;
  /** The mapping of this version differs from the current definition. */
  stale: boolean;
  rows: number | null;
  source: string | null;
  /** The load writing it, while unfinished (indices created before loaders were recorded: null). */
  loader: Loader | null;
}

/** The graph of the lookalike vectors is built after the rows are served (see LOOKALIKE_FLAT). */
export const defersVectors = (def: EntityDef, shape: IndexShape): boolean => def.lookalike !== undefined && shape.vectorBuild !== 'during';

/** How often a load renews its heartbeat, and how old a heartbeat makes its index an orphan. */
export const LOADER_HEARTBEAT_MS = 15_000;
export const ORPHAN_AFTER_MS = 4 * LOADER_HEARTBEAT_MS;

/** Every version of an entity's index, newest first. */
export async function listVersions(es: Es, ns: string, def: EntityDef): Promise<IndexVersion[]> {
  const alias = aliasName(ns, def.name);
  const pattern = versionPattern(ns, def.name);
  const [mappings, stats, aliases] = await Promise.all([
    es.indices.getMapping({ index: pattern, allow_no_indices: true, expand_wildcards: 'open' }),
    es.indices.stats({ index: pattern, metric: ['docs', 'store'], expand_wildcards: 'open' }),
    es.indices.getAlias({ name: alias }, { ignore: [404] }) as Promise<Record<string, unknown>>,
  ]);
  const settings = Object.keys(mappings).length
    ? await es.indices.getSettings({ index: pattern, name: 'index.creation_date', allow_no_indices: true })
    : {};
  const liveSet = new Set(Object.keys(aliases ?? {}).filter((k) => k !== 'error' && k !== 'status'));
  const current = mappingHash(def);
  const out: IndexVersion[] = [];
  for (const [index, m] of Object.entries(mappings)) {
    if (!isVersionOf(index, ns, def.name)) continue;
    const meta = bintelMeta(m);
    const st = stats.indices?.[index]?.primaries;
    const created = Number((settings as Record<string, { settings?: { index?: { creation_date?: string } } }>)[index]?.settings?.index?.creation_date ?? 0);
    out.push({
      index,
      live: liveSet.has(index),
      complete: meta.complete === true,
      docs: st?.docs?.count ?? 0,
      sizeBytes: st?.store?.size_in_bytes ?? 0,
      createdAt: created ? new Date(created).toISOString() : '',
      mappingHash: meta.mapping_hash ?? null,
      stale: meta.mapping_hash !== current,
      rows: meta.rows ?? null,
      source: meta.source ?? null,
      loader: meta.loader ?? null,
    });
  }
  return out.sort((a, b) => b.index.localeCompare(a.index));
}

/** The index the alias points at, or null. */
export async function liveIndex(es: Es, ns: string, entity: EntityName): Promise<string | null> {
  const res = (await es.indices.getAlias({ name: aliasName(ns, entity) }, { ignore: [404] })) as Record<string, unknown>;
  const names = Object.keys(res ?? {}).filter((k) => k !== 'error' && k !== 'status');
  return names[0] ?? null;
}

/**
 * Merging while loading, allowed up to this many segments of a size (Lucene's default: 10). Every
 * load ends in a merge that rewrites every row anyway (to BINTEL_MERGE_SEGMENTS, or the lookalike
 * graph's), so the merges on the way were work done twice: at 300k companies this took
 * Elasticsearch from 292 to 250 µs of CPU per row and the rows were served after 59 s instead of
 * 68 s (docs/performance.md, goal 1).
 */
const LOAD_SEGMENTS_PER_TIER = 50;

/** Load-time settings: no refresh, no replicas, async translog, few merges. */
const LOAD_SETTINGS = {
  refresh_interval: '-1',
  number_of_replicas: 0,
  'translog.durability': 'async',
  'merge.policy.segments_per_tier': LOAD_SEGMENTS_PER_TIER,
  'merge.policy.max_merge_at_once': LOAD_SEGMENTS_PER_TIER,
};

/** What a complete index serves with: refresh and durable writes. */
const SERVE_SETTINGS = { refresh_interval: '1s', 'translog.durability': 'request' };

/**
 * The default merge policy back, once the load's last merge is done (kept until then: restored
 * before, it would start merges of the load's segments that the last merge then rewrites again).
 */
const restoreMergePolicy = (es: Es, index: string) =>
  es.indices.putSettings({ index, settings: { 'merge.policy.segments_per_tier': null, 'merge.policy.max_merge_at_once': null } as Record<string, unknown> });

/** This process as a loader, now. */
const thisLoader = (): Loader => ({ host: hostname(), pid: process.pid, heartbeat_at: Date.now() });

const loadingMeta = (def: EntityDef): BintelMeta => ({ entity: def.name, mapping_hash: mappingHash(def), complete: false, loader: thisLoader() });

/** Creates a new, empty version tuned for bulk loading, marked unfinished and naming this process as its loader. */
export async function createLoadIndex(es: Es, index: string, def: EntityDef, shape: IndexShape): Promise<void> {
  const mappings = esMappings(def) as { properties: Record<string, unknown> };
  if (defersVectors(def, shape)) mappings.properties = { ...mappings.properties, [LOOKALIKE_FIELD]: vectorMapping(def, LOOKALIKE_FLAT) };
  await es.indices.create({
    index,
    settings: { ...esSettings(shape, def), ...LOAD_SETTINGS } as Record<string, unknown>,
    mappings: { ...(mappings as Record<string, unknown>), _meta: { bintel: loadingMeta(def) } },
  });
}

/**
 * Renews this process's heartbeat on an unfinished index until the returned function is called
 * (which also waits for a renewal in flight, so none lands after the index is marked complete).
 */
export function keepLoaderAlive(es: Es, index: string, def: EntityDef, onError?: (err: Error) => void): () => Promise<void> {
  let pending: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    pending = es.indices.putMapping({ index, _meta: { bintel: loadingMeta(def) } }).catch((err: Error) => onError?.(err));
  }, LOADER_HEARTBEAT_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await pending;
  };
}

/** Whether a process of this host with `pid` exists. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether an unfinished version's load is gone (see the module comment). */
export function isOrphan(v: IndexVersion, now = Date.now()): boolean {
  if (v.live || v.complete) return false;
  if (!v.loader) return v.createdAt !== '' && Date.parse(v.createdAt) + ORPHAN_AFTER_MS < now;
  if (v.loader.host === hostname() && v.loader.pid !== process.pid && !processExists(v.loader.pid)) return true;
  return v.loader.heartbeat_at + ORPHAN_AFTER_MS < now;
}

/** Deletes the unfinished versions of a resource whose load is gone (ending any merge they still run); returns their names. */
export async function pruneOrphans(es: Es, ns: string, def: EntityDef, now = Date.now()): Promise<string[]> {
  const drop = (await listVersions(es, ns, def)).filter((v) => isOrphan(v, now)).map((v) => v.index);
  if (drop.length) await es.indices.delete({ index: drop.join(','), ignore_unavailable: true });
  return drop;
}

/** Raised when a load's signal aborts a step that waits on Elasticsearch (the merge). */
export class StepAborted extends Error {}

/**
 * Force-merges `index` down to `segments` as a background task, polled until it is done: a merge
 * of a million documents with vectors takes minutes, longer than any one HTTP request should
 * be held open (proxies and client timeouts cut it). An abort of `signal` stops the wait
 * (StepAborted); the caller deletes the index, which ends the merge.
 */
export async function forceMerge(es: Es, index: string, segments: number, opts: { signal?: AbortSignal; onStarted?: () => void } = {}): Promise<void> {
  const started = (await es.indices.forcemerge({ index, max_num_segments: segments, wait_for_completion: false })) as unknown as { task?: string };
  if (!started.task) return;
  opts.onStarted?.();
  // Polled without waiting on the server side (a waiting task GET answers 500 timeout_exception
  // after its timeout): every 100 ms at first, then every 2 s.
  for (let wait = 100; ; wait = Math.min(2000, wait * 2)) {
    if (opts.signal?.aborted) throw new StepAborted(`force-merge of ${index} interrupted`);
    const t = (await es.tasks.get({ task_id: started.task })) as { completed?: boolean; error?: { type?: string; reason?: string } };
    if (t.error) throw new Error(`force-merge of ${index} failed: ${t.error.reason ?? JSON.stringify(t.error)}`);
    if (t.completed) return;
    await new Promise<void>((r) => {
      const timer = setTimeout(done, wait);
      function done(): void {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', done);
        r();
      }
      opts.signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * Makes a loaded index ready to serve: restores refresh and durability, refreshes, force-merges
 * it (BINTEL_MERGE_SEGMENTS) while it has no replicas, so the merge runs once and the replicas
 * copy the merged segments, then restores the replicas, waits for its shards, and records
 * completeness in the mapping `_meta`.
 */
export async function finishLoadIndex(es: Es, index: string, def: EntityDef, opts: { shape: IndexShape; rows: number; source: string; signal?: AbortSignal; onMerge?: () => void; beforeComplete?: () => Promise<void>; complete?: boolean }): Promise<void> {
  const { shape } = opts;
  await es.indices.putSettings({ index, settings: SERVE_SETTINGS });
  await es.indices.refresh({ index });
  const deferred = defersVectors(def, shape);
  // With the graph deferred the rows are served as loaded, in up to SERVED_SEGMENTS segments: the one merge of buildVectorIndex, after the alias
  // moves, rewrites them all with the graph. A merge before would rewrite every row twice.
  // Not even asked for below it: a force-merge waits in the node's one merge slot behind any other
  // (another load's graph can hold it for minutes).
  const segments = async () => (await es.indices.stats({ index, metric: ['segments'] })).indices?.[index]?.primaries?.segments?.count ?? 0;
  if (shape.mergeSegments && (!deferred || (await segments()) > SERVED_SEGMENTS)) await forceMerge(es, index, deferred ? SERVED_SEGMENTS : shape.mergeSegments, { signal: opts.signal, onStarted: opts.onMerge });
  if (!deferred) await restoreMergePolicy(es, index);
  await es.indices.putSettings({ index, settings: { number_of_replicas: shape.replicas } });
  await es.cluster.health({ index, wait_for_status: shape.replicas > 0 ? 'green' : 'yellow', timeout: '120s' });
  if (opts.complete === false) return;
  await opts.beforeComplete?.();
  await markComplete(es, index, def, opts);
}

/** Records a finished index as complete in its mapping `_meta` (rows, source, time; the lookalike graph `building` when deferred). */
export async function markComplete(es: Es, index: string, def: EntityDef, opts: { shape: IndexShape; rows: number; source: string }): Promise<void> {
  const meta: BintelMeta = { entity: def.name, mapping_hash: mappingHash(def), complete: true, rows: opts.rows, source: opts.source, loaded_at: new Date().toISOString(), ...(defersVectors(def, opts.shape) ? { vectors: 'building' as const } : {}) };
  await es.indices.putMapping({ index, _meta: { bintel: meta } });
}

/** Segments a load with its lookalike graph deferred may serve from before that graph's merge (see finishLoadIndex). */
export const SERVED_SEGMENTS = 50;

/** The `_meta.bintel` of an index. */
async function metaOf(es: Es, index: string): Promise<BintelMeta> {
  return onlyBintelMeta(await es.indices.getMapping({ index }));
}

/** The lookalike graph status of an index (by name or alias): `ready` unless a load marked it building. */
export async function vectorStatus(es: Es, index: string): Promise<VectorStatus> {
  return vectorsOf(await metaOf(es, index));
}

/**
 * Writes the lookalike graph of a live index loaded with flat vectors (defersVectors): the mapping
 * becomes LOOKALIKE_HNSW (new segments get the graph) and the index is force-merged to
 * `shape.mergeSegments`, which rewrites every vector with its graph; then `_meta` says ready.
 * Until then knn searches score every candidate (exact). With no merge asked (0), or an index
 * already at one segment (a small load), the vectors stay flat, which is exact and, at that
 * size, fast. An abort stops the wait (StepAborted): the merge goes on inside Elasticsearch,
 * the index stays live and marked building.
 */
export async function buildVectorIndex(es: Es, index: string, def: EntityDef, shape: IndexShape, opts: { signal?: AbortSignal; onStarted?: () => void } = {}): Promise<void> {
  await es.indices.putMapping({ index, properties: { [LOOKALIKE_FIELD]: vectorMapping(def) as never } });
  const segments = (await es.indices.stats({ index, metric: ['segments'] })).indices?.[index]?.primaries?.segments?.count ?? 0;
  if (shape.mergeSegments && segments > shape.mergeSegments) await forceMerge(es, index, shape.mergeSegments, opts);
  await restoreMergePolicy(es, index);
  const { vectors: _building, ...meta } = await metaOf(es, index);
  await es.indices.putMapping({ index, _meta: { bintel: { ...meta, vectors: 'ready' } } });
}

/** Points the alias at `index` in one atomic `_aliases` call, removing it from every other version. */
export async function swapAlias(es: Es, ns: string, entity: EntityName, index: string): Promise<string | null> {
  return (await swapAliases(es, ns, [{ entity, index }])).get(entity) ?? null;
}

/**
 * Points several aliases at their new indices in ONE atomic `_aliases` call (the resources of an
 * import switch together); returns the index each served before (null: none).
 */
export async function swapAliases(es: Es, ns: string, moves: readonly { entity: EntityName; index: string }[]): Promise<Map<EntityName, string | null>> {
  const previous = new Map<EntityName, string | null>();
  const actions: Record<string, unknown>[] = [];
  for (const { entity, index } of moves) {
    const alias = aliasName(ns, entity);
    const before = await liveIndex(es, ns, entity);
    previous.set(entity, before);
    if (before && before !== index) actions.push({ remove: { index: before, alias } });
    actions.push({ add: { index, alias } });
  }
  await es.indices.updateAliases({ actions: actions as never });
  return previous;
}

/**
 * Deletes versions that are neither live, nor the newest complete version before the live one
 * (kept for rollback), nor newer than the live one, nor unfinished with a live loader (a load may
 * be running). Exact names only.
 */
export async function pruneVersions(es: Es, ns: string, def: EntityDef): Promise<string[]> {
  const versions = await listVersions(es, ns, def);
  const live = versions.find((v) => v.live);
  if (!live) return [];
  const older = versions.filter((v) => v.index < live.index);
  const keep = older.find((v) => v.complete);
  // An unfinished version is another load's until its loader is gone (isOrphan).
  const drop = older.filter((v) => v !== keep && (v.complete || isOrphan(v))).map((v) => v.index);
  if (drop.length) await es.indices.delete({ index: drop.join(','), ignore_unavailable: true });
  return drop;
}

/** Moves the alias back to the newest complete version older than the live one. */
export async function rollback(es: Es, ns: string, def: EntityDef): Promise<{ from: string; to: string }> {
  const versions = await listVersions(es, ns, def);
  const live = versions.find((v) => v.live);
  if (!live) throw new Error(`${aliasName(ns, def.name)} points at no index: nothing to roll back`);
  const target = versions.find((v) => v.index < live.index && v.complete);
  if (!target) throw new Error(`no complete version of ${def.name} older than ${live.index} is kept: nothing to roll back to`);
  await swapAlias(es, ns, def.name, target.index);
  return { from: live.index, to: target.index };
}

/** Deletes one index by exact name (used for aborted loads). */
export async function dropIndex(es: Es, index: string): Promise<void> {
  await es.indices.delete({ index, ignore_unavailable: true });
}
