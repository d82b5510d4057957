/**
 * Parents for the joins of a load of several resources in a row (`bintel import form5500`):
 * as a parent resource loads, the fields its children's joins read are recorded from the rows
 * as they are written (the completed rows, exactly the `_source` of the new version), so the
 * children join from that record instead of one `_mget` per piece of 100 rows against
 * Elasticsearch (at scale 0.05 of a year, 1,227 `_mget` calls, 28 s of a 167 s import, and
 * Elasticsearch CPU to read each parent's `_source` back).
 *
 * Small parents (brokers, offices: at most a few hundred thousand) are kept in memory as JSON
 * text. Large ones (companies) are written to a temporary file in load order and read forward
 * as the children ask for them: the import produces contacts sponsor by sponsor in the order it
 * produced companies, so a short window of lines read ahead serves every lookup; any id not found
 * forward (and every lookup of a parent whose load had rows rejected by Elasticsearch) goes to
 * the fallback, the `_mget` of the new version.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTITY_NAMES, entity } from '../mappings/index.ts';
import type { Doc, EntityName } from '../mappings/types.ts';
import { joinFields, type ParentLookup, type PreparedRow } from './transform.ts';

/** Every field any resource's joins read from `parent`. */
export function fieldsReadFrom(parent: EntityName): Set<string> {
  const out = new Set<string>();
  for (const name of ENTITY_NAMES) {
    const def = entity(name);
    const byJoin = joinFields(def);
    for (const j of def.joins) if (j.entity === parent) for (const f of byJoin.get(j.name) ?? []) out.add(f);
  }
  return out;
}

/** Lines one lookup reads forward at most; twice as many are kept (older ones are forgotten). */
const WINDOW = 5_000;
const CHUNK = 1 << 20;

/** A parent resource recorded to a file in load order, read forward. */
class ForwardFile {
  private readonly fd: number;
  private writePos = 0;
  private readPos = 0;
  private rest = '';
  private restPos = 0;
  private eof = false;
  private readonly window = new Map<string, string>();
  /** One read buffer for the whole file (its text is copied out): a new 1 MB buffer per read lived outside the heap until a full collection. */
  private readonly chunk = Buffer.allocUnsafe(CHUNK);
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w+');
  }
  write(lines: string): void {
    const buf = Buffer.from(lines);
    writeSync(this.fd, buf, 0, buf.length, this.writePos);
    this.writePos += buf.length;
  }
  /** The recorded JSON of `id`: from the lines read ahead, else reading at most WINDOW lines forward; undefined when it is not there. */
  find(id: string): string | undefined {
    const hit = this.window.get(id);
    if (hit !== undefined) return hit;
    let budget = WINDOW;
    while (budget > 0) {
      const nl = this.rest.indexOf('\n', this.restPos);
      if (nl < 0) {
        if (this.eof) return undefined;
        const buf = this.chunk;
        const n = readSync(this.fd, buf, 0, CHUNK, this.readPos);
        if (n === 0) this.eof = true;
        this.readPos += n;
        this.rest = this.rest.slice(this.restPos) + buf.toString('utf8', 0, n);
        this.restPos = 0;
        continue;
      }
      const line = this.rest.slice(this.restPos, nl);
      this.restPos = nl + 1;
      budget--;
      const tab = line.indexOf('\t');
      const key = line.slice(0, tab);
      const json = line.slice(tab + 1);
      this.window.set(key, json);
      if (this.window.size > 2 * WINDOW) this.window.delete(this.window.keys().next().value as string);
      if (key === id) return json;
    }
    return undefined;
  }
  close(): void {
    closeSync(this.fd);
  }
}

export class RecordedParents {
  private readonly dir = mkdtempSync(join(tmpdir(), 'bintel-parents-'));
  private readonly memory = new Map<EntityName, Map<string, string>>();
  private readonly files = new Map<EntityName, ForwardFile>();
  private readonly fields = new Map<EntityName, string[]>();
  private readonly unusable = new Set<EntityName>();
  /** Lookups served from the record, and sent to the fallback. */
  readonly stats = { recorded: 0, fallback: 0 };

  /** Starts recording `parent`: in memory (`large` false) or to a file read forward. */
  recorder(parent: EntityName, large: boolean): (rows: readonly PreparedRow[]) => void {
    const fields = [...fieldsReadFrom(parent)];
    this.fields.set(parent, fields);
    const project = (d: Doc) => {
      const o: Doc = {};
      for (const f of fields) if (d[f] !== undefined) o[f] = d[f];
      return JSON.stringify(o);
    };
    if (!large) {
      const map = new Map<string, string>();
      this.memory.set(parent, map);
      return (rows) => {
        for (const r of rows) map.set(String(r.doc.id), project(r.doc));
      };
    }
    const file = new ForwardFile(join(this.dir, `${parent}.jsonl`));
    this.files.set(parent, file);
    return (rows) => {
      let out = '';
      for (const r of rows) out += `${String(r.doc.id).replace(/[\t\n]/g, ' ')}\t${project(r.doc)}\n`;
      file.write(out);
    };
  }

  /** Every lookup of `parent` goes to the fallback (its load had rows rejected by Elasticsearch: the record may hold rows the index lacks). */
  forget(parent: EntityName): void {
    this.unusable.add(parent);
    this.memory.delete(parent);
  }

  /** A lookup serving recorded parents, others from `fallback`. */
  lookup(fallback: ParentLookup): ParentLookup {
    return {
      fetch: async (name, ids, fields) => {
        const recorded = this.fields.get(name);
        const mem = this.memory.get(name);
        const file = this.files.get(name);
        if (this.unusable.has(name) || !recorded || (!mem && !file) || !fields.every((f) => recorded.includes(f))) {
          this.stats.fallback += ids.length;
          return fallback.fetch(name, ids, fields);
        }
        const out = new Map<string, Doc>();
        const missing: string[] = [];
        for (const id of ids) {
          const json = mem ? mem.get(id) : file?.find(id);
          if (json === undefined) missing.push(id);
          else out.set(id, JSON.parse(json) as Doc);
        }
        this.stats.recorded += ids.length - missing.length;
        if (missing.length) {
          this.stats.fallback += missing.length;
          for (const [id, d] of await fallback.fetch(name, missing, fields)) out.set(id, d);
        }
        return out;
      },
    };
  }

  close(): void {
    for (const f of this.files.values()) f.close();
    this.files.clear();
    this.memory.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
