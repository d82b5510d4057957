/**
 * What bintel records about an index in its mapping (`_meta.bintel`): the load that wrote it,
 * whether it is complete, and the state of its lookalike graph. One reader for the loads
 * (ingest/indices.ts) and the API (server/read/lookalikes.ts), so both read the same answer.
 */

/** The load writing an unfinished index. */
export interface Loader {
  host: string;
  pid: number;
  /** Epoch ms of its last heartbeat. */
  heartbeat_at: number;
}

/** Whether a live index's lookalike graph is written (`building`: knn scores every candidate, exact and slower). */
export type VectorStatus = 'building' | 'ready';

export interface BintelMeta {
  entity?: string;
  mapping_hash?: string;
  complete?: boolean;
  rows?: number;
  source?: string;
  loaded_at?: string;
  loader?: Loader;
  /** The lookalike graph of a complete index: being built after the alias moved, or ready (absent: ready). */
  vectors?: VectorStatus;
}

/** The `_meta.bintel` of one index's entry in a get-mapping answer (`{}` when absent). */
export function bintelMeta(entry: unknown): BintelMeta {
  const meta = (entry as { mappings?: { _meta?: { bintel?: unknown } } } | undefined)?.mappings?._meta?.bintel;
  return meta && typeof meta === 'object' ? (meta as BintelMeta) : {};
}

/** The `_meta.bintel` of the one index a get-mapping answer of an index name or alias holds. */
export const onlyBintelMeta = (mappings: Record<string, unknown> | null | undefined): BintelMeta => bintelMeta(Object.values(mappings ?? {})[0]);

/** The lookalike graph status `meta` records: `ready` unless a load marked it building. */
export const vectorsOf = (meta: BintelMeta): VectorStatus => (meta.vectors === 'building' ? 'building' : 'ready');
