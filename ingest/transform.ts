/**
 * Turns raw rows into Elasticsearch documents, all from the entity definition:
 * 1. `prepareRow`: coerce and check every CSV field, apply the entity's rules, choose the id;
 * 2. `completeBatch`: resolve joins against parent indices (one lookup per batch and join),
 *    copy the joined fields, compute derived fields and the search companions.
 */
import { createHash } from 'node:crypto';
import { companion, droppedArticle, hasSuggest, isSearchable, popularityOf, sortRank, suggestValue } from '../mappings/es-mapping.ts';
import { foldText, normalizeFolded, normalizeName } from '../mappings/normalize.ts';
import { LOOKALIKE_FIELD, lookalikeVector } from '../mappings/lookalike.ts';
import type { Doc, EntityDef, EntityName, FieldDef, JoinDef } from '../mappings/types.ts';
import { checkId, coerceField, isBlank, type FieldIssue } from './validate.ts';

/** A row as read from a source: CSV strings, or typed values from a live index. */
export interface RawRow {
  /** 1-based record number after the header. */
  row: number;
  /** Line of the record in the file (row + 1 unless an earlier record spans lines). */
  line: number;
  values: Record<string, unknown>;
}

export interface PreparedRow {
  row: number;
  line: number;
  id: string;
  doc: Doc;
}

export interface RejectedRow {
  row: number;
  line: number;
  issues: FieldIssue[];
}

/** Fetches parent documents by id (only the listed fields); missing ids are absent from the map. */
export interface ParentLookup {
  fetch(entity: EntityName, ids: readonly string[], fields: readonly string[]): Promise<Map<string, Doc>>;
}

/** A deterministic UUID-shaped id from an entity's natural key. */
export function naturalId(def: EntityDef, doc: Doc): string | null {
  const parts = def.naturalKey.map((k) => (isBlank(doc[k]) ? '' : JSON.stringify(doc[k])));
  if (parts.every((p) => p === '')) return null;
  const h = createHash('sha1').update(`${def.name}\u0000${parts.join('\u0000')}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Step 1: the CSV fields of one row, typed and checked; or every issue found. */
export function prepareRow(def: EntityDef, raw: RawRow, csvFields: readonly FieldDef[]): PreparedRow | RejectedRow {
  const doc: Doc = {};
  const issues: FieldIssue[] = [];
  for (const f of csvFields) {
    if (f.name === 'id') continue;
    const c = coerceField(f, raw.values[f.name]);
    // Blank values are left out (never set then deleted: deletes make V8 objects slow dictionaries).
    if (c.ok) {
      if (c.value !== null) doc[f.name] = c.value;
    } else issues.push({ field: f.name, issue: c.issue, expected: c.expected });
  }
  for (const rule of def.rules ?? []) {
    const broken = rule(doc);
    if (broken) issues.push({ field: broken[0], issue: broken[1] });
  }
  const rawId = raw.values.id;
  let id: string | null;
  if (isBlank(rawId)) {
    id = naturalId(def, doc);
    if (!id) issues.push({ field: 'id', issue: 'missing_required', expected: `an id or ${def.naturalKey.join(', ')}` });
  } else {
    id = checkId(String(rawId).trim());
    if (!id) issues.push({ field: 'id', issue: 'invalid_id', expected: 'letters, digits, _ . : - (at most 128)' });
  }
  if (issues.length) return { row: raw.row, line: raw.line, issues };
  doc.id = id;
  return { row: raw.row, line: raw.line, id: id as string, doc };
}

export function isRejected(r: PreparedRow | RejectedRow): r is RejectedRow {
  return (r as RejectedRow).issues !== undefined;
}

/** Parent fields each join needs: the `from` fields of every join field using it. */
export function joinFields(def: EntityDef): Map<string, string[]> {
  const out = new Map<string, string[]>(def.joins.map((j) => [j.name, []]));
  for (const f of def.fields) {
    if (f.source.kind !== 'join') continue;
    for (const [join, field] of f.source.paths) {
      const list = out.get(join);
      if (!list) throw new Error(`${def.name}.${f.name}: unknown join "${join}"`);
      if (!list.includes(field)) list.push(field);
    }
  }
  return out;
}

const entityFields = new WeakMap<EntityDef, Map<EntityName, string[]>>();

/** The fields read from each parent entity over all of an entity's joins (sorted: one cache scope). */
function entityJoinFields(def: EntityDef): Map<EntityName, string[]> {
  let out = entityFields.get(def);
  if (out) return out;
  const byJoin = joinFields(def);
  const sets = new Map<EntityName, Set<string>>();
  for (const j of def.joins) {
    const set = sets.get(j.entity) ?? new Set<string>();
    for (const f of byJoin.get(j.name) ?? []) set.add(f);
    sets.set(j.entity, set);
  }
  out = new Map([...sets].map(([entity, set]) => [entity, [...set].sort()]));
  entityFields.set(def, out);
  return out;
}

function keyIds(doc: Doc, j: JoinDef): string[] {
  const v = doc[j.key];
  if (isBlank(v)) return [];
  return Array.isArray(v) ? v.map(String) : [String(v)];
}

/** Values of a parent field across the doc's parents for one join: scalar for a scalar key, array otherwise. */
function joinedValue(doc: Doc, j: JoinDef, parents: Map<string, Doc>, field: string): unknown {
  const ids = keyIds(doc, j);
  if (!Array.isArray(doc[j.key])) return ids.length ? (parents.get(ids[0])?.[field] ?? null) : null;
  const out: unknown[] = [];
  for (const id of ids) {
    const v = parents.get(id)?.[field];
    for (const x of Array.isArray(v) ? v : [v]) if (!isBlank(x) && !out.includes(x)) out.push(x);
  }
  return out.length ? out : null;
}

/** Search companions of a name field's value. */
function addCompanions(def: EntityDef, doc: Doc, f: FieldDef): void {
  const v = doc[f.name];
  if (typeof v !== 'string' || !v) return;
  const folded = foldText(v);
  doc[companion.sort(f.name)] = folded;
  if (f.sortable) {
    const rank = sortRank(folded);
    if (rank !== undefined) doc[companion.rank(f.name)] = rank;
  }
  if (!isSearchable(f)) return;
  const norm = normalizeFolded(folded);
  doc[companion.norm(f.name)] = norm;
  // Compact forms: of the normalized name and of the whole folded name, so a missing space
  // next to "The" or a legal suffix ("TheHall Company") still meets one of them; and, for a
  // name with '&' (folded to "and"), of the name without it, since people type "AT&T" as
  // "ATT" and "A&A Interiors" as "AA Interiors".
  const compacts = new Set([norm.replace(/ /g, ''), folded.replace(/ /g, '')]);
  if (v.includes('&')) compacts.add(normalizeName(v.replace(/&/g, '')).replace(/ /g, ''));
  compacts.delete('');
  doc[companion.compact(f.name)] = compacts.size === 1 ? [...compacts][0] : [...compacts];
  if (hasSuggest(f) && norm) doc[companion.suggest(f.name)] = suggestValue(norm, popularityOf(def, doc), droppedArticle(folded, norm));
}

/**
 * Step 2 for a batch: joins, derived fields, companions. Rows whose parent ids do not exist
 * are rejected with issue invalid_reference. Returns the completed and the rejected rows.
 */
export async function completeBatch(
  def: EntityDef,
  rows: PreparedRow[],
  lookup: ParentLookup,
): Promise<{ done: PreparedRow[]; rejected: RejectedRow[] }> {
  // One fetch per parent entity, with every field its joins read: two joins of one entity
  // (a company's offices and its primary office) share one cache and one `_mget`.
  const byEntity = new Map<EntityName, { ids: Set<string>; fields: string[] }>();
  for (const [entity, fields] of entityJoinFields(def)) byEntity.set(entity, { ids: new Set(), fields });
  for (const j of def.joins) {
    const want = byEntity.get(j.entity) as { ids: Set<string> };
    for (const r of rows) for (const id of keyIds(r.doc, j)) want.ids.add(id);
  }
  const fetched = new Map<EntityName, Map<string, Doc>>();
  for (const [entity, { ids, fields }] of byEntity) fetched.set(entity, ids.size ? await lookup.fetch(entity, [...ids], fields) : new Map());
  const parentsByJoin = new Map<string, Map<string, Doc>>(def.joins.map((j) => [j.name, fetched.get(j.entity) as Map<string, Doc>]));
  const done: PreparedRow[] = [];
  const rejected: RejectedRow[] = [];
  for (const r of rows) {
    const issues: FieldIssue[] = [];
    for (const j of def.joins) {
      const parents = parentsByJoin.get(j.name) as Map<string, Doc>;
      const missing = keyIds(r.doc, j).filter((id) => !parents.has(id));
      if (missing.length) issues.push({ field: j.key, issue: 'invalid_reference', expected: `existing ${j.entity} ids (not found: ${missing.slice(0, 3).join(', ')})` });
    }
    if (issues.length) {
      rejected.push({ row: r.row, line: r.line, issues });
      continue;
    }
    completeDoc(def, r.doc, parentsByJoin);
    done.push(r);
  }
  return { done, rejected };
}

/** What completing a document of an entity involves, computed once per entity. */
interface Plan {
  joined: { f: FieldDef; paths: { join: JoinDef; field: string }[] }[];
  derived: FieldDef[];
  names: FieldDef[];
}

const plans = new WeakMap<EntityDef, Plan>();

function planOf(def: EntityDef): Plan {
  let plan = plans.get(def);
  if (plan) return plan;
  const joins = new Map(def.joins.map((j) => [j.name, j]));
  plan = {
    joined: def.fields.flatMap((f) => (f.source.kind === 'join' ? [{ f, paths: f.source.paths.map(([join, field]) => ({ join: joins.get(join) as JoinDef, field })) }] : [])),
    derived: def.fields.filter((f) => f.source.kind === 'derived'),
    names: def.fields.filter((f) => f.type === 'name'),
  };
  plans.set(def, plan);
  return plan;
}

const NO_PARENTS = new Map<string, Doc>();

/** Fills join, derived and companion fields of one document in place; blank values are left out. */
export function completeDoc(def: EntityDef, doc: Doc, parentsByJoin: Map<string, Map<string, Doc>>): void {
  const plan = planOf(def);
  for (const { f, paths } of plan.joined) {
    let value: unknown = null;
    for (const { join, field } of paths) {
      value = joinedValue(doc, join, parentsByJoin.get(join.name) ?? NO_PARENTS, field);
      if (!isBlank(value)) break;
    }
    setShaped(doc, f, value);
  }
  for (const f of plan.derived) setShaped(doc, f, (f.source as { derive: (d: Doc) => unknown }).derive(doc));
  for (const f of plan.names) addCompanions(def, doc, f);
  if (def.lookalike) doc[LOOKALIKE_FIELD] = lookalikeVector(def.lookalike, doc);
}

/** Sets a computed field: keywords fields are arrays, scalar fields take the first of an array; blank is left out. */
function setShaped(doc: Doc, f: FieldDef, v: unknown): void {
  if (isBlank(v)) return;
  doc[f.name] = f.type === 'keywords' ? (Array.isArray(v) ? v : [v]) : Array.isArray(v) ? v[0] : v;
}
