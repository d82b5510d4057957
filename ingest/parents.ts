/**
 * Parent lookups for joins at ingest: `_mget` against the parent's alias in the same
 * namespace, with a bounded LRU cache (many rows share a parent: offices of a broker,
 * contacts of a company).
 */
import type { Es } from '../core/adapters/es.ts';
import { NotFoundError } from '../core/errors.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import type { Doc, EntityName } from '../mappings/types.ts';
import type { ParentLookup } from './transform.ts';
import { InputError } from './csv-source.ts';
import { aliasName } from '../core/names.ts';

const MISSING = Symbol('missing');

function missingParent(entity: EntityName, index: string): InputError {
  return new InputError(`cannot resolve references to ${entity}: ${index} does not exist. Load ${entity} first (load order: ${ENTITY_NAMES.join(' → ')})`);
}

export class EsParentLookup implements ParentLookup {
  /** One FIFO cache per (entity, fields) scope; MISSING remembers ids that do not exist. */
  private readonly caches = new Map<string, Map<string, Doc | typeof MISSING>>();

  constructor(
    private readonly es: Es,
    private readonly ns: string,
    private readonly maxEntries = 100_000,
    /** Indices to read a parent from instead of its alias (an import's new, not yet served versions). */
    private readonly indices: Partial<Record<EntityName, string>> = {},
  ) {}

  async fetch(entity: EntityName, ids: readonly string[], fields: readonly string[]): Promise<Map<string, Doc>> {
    const scope = `${entity}|${fields.join(',')}`;
    let cache = this.caches.get(scope);
    if (!cache) this.caches.set(scope, (cache = new Map()));
    const out = new Map<string, Doc>();
    const todo: string[] = [];
    for (const id of ids) {
      const hit = cache.get(id);
      if (hit === undefined) todo.push(id);
      else if (hit !== MISSING) out.set(id, hit);
    }
    if (todo.length) {
      const found = await this.mget(entity, todo, fields);
      for (const [id, doc] of found) {
        cache.set(id, doc);
        out.set(id, doc);
      }
      // Keys from the response are fresh strings; ids we hold may be slices of a whole CSV
      // chunk, and a long-lived cache key would keep that chunk alive. Copy them.
      for (const id of todo) if (!found.has(id)) cache.set(JSON.parse(JSON.stringify(id)) as string, MISSING);
      // Evict the oldest entries (insertion order) past the bound.
      for (const k of cache.keys()) {
        if (cache.size <= this.maxEntries) break;
        cache.delete(k);
      }
    }
    return out;
  }

  protected async mget(entity: EntityName, ids: string[], fields: readonly string[]): Promise<Map<string, Doc>> {
    const index = this.indices[entity] ?? aliasName(this.ns, entity);
    try {
      const res = await this.es.mget<Doc>({ index, ids, _source_includes: fields.length ? [...fields] : ['id'] });
      const out = new Map<string, Doc>();
      for (const d of res.docs) {
        if ('error' in d && d.error?.type === 'index_not_found_exception') throw missingParent(entity, index);
        if ('found' in d && d.found && d._source) out.set(d._id, d._source);
      }
      return out;
    } catch (err) {
      if (err instanceof NotFoundError && err.what === 'index') {
        throw missingParent(entity, index);
      }
      throw err;
    }
  }
}
