/**
 * What the live aliases point at, read in one or two Elasticsearch calls: for readiness (every
 * resource's alias must exist) and for the index gauges of /metrics (alias, generation, the
 * lookalike graph's state).
 */
import type { Es } from '../core/adapters/es.ts';
import { aliasName } from '../core/names.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import type { EntityName } from '../mappings/types.ts';
import { bintelMeta, vectorsOf, type VectorStatus } from '../mappings/index-meta.ts';

/** One resource's live alias and the index version behind it (null: the alias does not exist). */
export interface AliasState {
  resource: EntityName;
  alias: string;
  index: string | null;
}

/** Bounded: readiness and a scrape must answer fast even when Elasticsearch does not. */
const CHECK = { requestTimeout: 3000, maxRetries: 0 } as const;

/** The live alias of every resource of namespace `ns`, and its index (null when missing). */
export async function readAliases(es: Es, ns: string): Promise<AliasState[]> {
  const aliases = ENTITY_NAMES.map((resource) => ({ resource, alias: aliasName(ns, resource) }));
  // A missing alias among several is a 404 whose body still lists the ones found (ignored: read as an answer).
  const res = (await es.indices.getAlias({ name: aliases.map((a) => a.alias) }, { ...CHECK, ignore: [404] })) as unknown as Record<string, unknown>;
  const behind = indicesByAlias(res);
  return aliases.map((a) => ({ ...a, index: behind.get(a.alias)?.at(-1) ?? null }));
}

/** The one index behind `alias` (the count cache keys by it); rejects when the alias is missing or stands for several. */
export async function indexBehind(es: Es, alias: string): Promise<string> {
  const found = indicesByAlias((await es.indices.getAlias({ name: alias })) as unknown as Record<string, unknown>).get(alias) ?? [];
  if (found.length !== 1) throw new Error(`alias ${alias} stands for ${found.length} indices`);
  return found[0];
}

/** The indices each alias of a getAlias answer stands for. */
function indicesByAlias(res: Record<string, unknown> | undefined): Map<string, string[]> {
  const behind = new Map<string, string[]>();
  for (const [index, entry] of Object.entries(res ?? {})) {
    const names = (entry as { aliases?: Record<string, unknown> } | null)?.aliases;
    if (names && typeof names === 'object') for (const a of Object.keys(names)) behind.set(a, [...(behind.get(a) ?? []), index]);
  }
  return behind;
}

/** The lookalike graph state of each index given (`ready` unless a load marked it building). */
export async function readVectorStates(es: Es, indices: readonly string[]): Promise<Map<string, VectorStatus>> {
  const out = new Map<string, VectorStatus>();
  if (!indices.length) return out;
  const res = (await es.indices.getMapping({ index: [...indices] }, CHECK)) as unknown as Record<string, unknown>;
  for (const [index, entry] of Object.entries(res ?? {})) out.set(index, vectorsOf(bintelMeta(entry)));
  return out;
}

/**
 * When an index version was created, in seconds since the epoch, from its name
 * (`<alias>-v<YYYYMMDDHHmmssSSS>`, core/names.ts newIndexName); null for another name.
 */
export function generationOf(index: string): number | null {
  const m = /-v(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})$/.exec(index);
  if (!m) return null;
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, s, ms) / 1000;
}
