/**
 * Parent lookups for joins at ingest: `_mget` against the parent's alias in the same
 * namespace, with a bounded LRU cache (many rows share a parent: offices of a broker,
 * contacts of a company).
 */
import type { Es } from '../server/adapters/es.ts';
import { esErrors } from '../server/adapters/es.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';
import type { Doc, EntityName } from '../mappings/types.ts';
import { aliasName } from './indices.ts';
import type { ParentLookup } from './transform.ts';
import { InputError } from './csv-source.ts';

const MISSING = Symbol('missing');

function missingParent(entity: EntityName, index: string): InputError {
  return new InputError(`cannot resolve references to ${entity}: ${index} does not exist. Load ${entity} first (load order: ${ENTITY_NAMES.join(' → ')})`);
}

export class EsParentLookup implements ParentLookup {
  private readonly cache = new Map<string, Doc | typeof MISSING>();

  constructor(private readonly es: Es, private readonly ns: string, private readonly maxEntries = 200_000) {}

  async fetch(entity: EntityName, ids: readonly string[], fields: readonly string[]): Promise<Map<string, Doc>> {
    const scope = `${entity}|${fields.join(',')}|`;
    const out = new Map<string, Doc>();
    const todo: string[] = [];
    for (const id of ids) {
      const hit = this.cache.get(scope + id);
      if (hit === undefined) todo.push(id);
      else {
        // Refresh recency.
        this.cache.delete(scope + id);
        this.cache.set(scope + id, hit);
        if (hit !== MISSING) out.set(id, hit);
      }
    }
    if (todo.length) {
      const found = await this.mget(entity, todo, fields);
      for (const id of todo) {
        const doc = found.get(id);
        this.remember(scope + id, doc ?? MISSING);
        if (doc) out.set(id, doc);
      }
    }
    return out;
  }

  private async mget(entity: EntityName, ids: string[], fields: readonly string[]): Promise<Map<string, Doc>> {
    const index = aliasName(this.ns, entity);
    try {
      const res = await this.es.mget<Doc>({ index, ids, _source_includes: fields.length ? [...fields] : ['id'] });
      const out = new Map<string, Doc>();
      for (const d of res.docs) {
        if ('error' in d && d.error?.type === 'index_not_found_exception') throw missingParent(entity, index);
        if ('found' in d && d.found && d._source) out.set(d._id, d._source);
      }
      return out;
    } catch (err) {
      if (err instanceof esErrors.ResponseError && err.statusCode === 404) {
        throw missingParent(entity, index);
      }
      throw err;
    }
  }

  private remember(key: string, v: Doc | typeof MISSING): void {
    this.cache.set(key, v);
    if (this.cache.size > this.maxEntries) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }
}
