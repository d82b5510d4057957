/**
 * Small constructors that keep the entity tables to one line per field.
 */
import { normalizeDomain } from './normalize.ts';
import type { Doc, EntityDef, FieldDef, FieldSource, FieldType } from './types.ts';

export const csv = (required = false): FieldSource => ({ kind: 'csv', required });
export const derived = (derive: (doc: Doc) => unknown): FieldSource => ({ kind: 'derived', derive });
/** The normalized domain of a website field (for lookups and CRM matching). */
export const domainOf = (website: string): FieldSource => derived((d) => (d[website] ? normalizeDomain(String(d[website])) || null : null));
/**
 * Copied from a parent: each path is "<join>:<parent field>" (joins are named in
 * EntityDef.joins); the first that resolves to a value wins.
 */
export const joined = (...paths: string[]): FieldSource => ({
  kind: 'join',
  paths: paths.map((p) => {
    const [join, field] = p.split(':');
    return [join, field] as const;
  }),
});

type Extra = Omit<FieldDef, 'name' | 'type' | 'description' | 'source'>;

/** One field: name, type, description, source and its roles. */
export function f(name: string, type: FieldType, description: string, source: FieldSource, extra: Extra = {}): FieldDef {
  return Object.freeze({ name, type, description, source, ...extra });
}

/** A number from a doc field, or null. */
export function num(doc: Doc, field: string): number | null {
  const v = doc[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** First non-null value of several doc fields. */
export function firstOf(doc: Doc, ...fields: string[]): unknown {
  for (const k of fields) {
    const v = doc[k];
    if (v !== null && v !== undefined && v !== '') return v;
  }
  return null;
}

/** Freezes an entity definition (and keeps its contextual typing). */
export function defineEntity(def: EntityDef): EntityDef {
  return Object.freeze({ ...def, fields: Object.freeze([...def.fields]), joins: Object.freeze([...def.joins]) });
}

/** A label: the value, then what qualifies it in parentheses (blank parts left out): "Acme Inc. (Dallas, TX)". */
export function qualified(value: unknown, ...parts: unknown[]): string {
  const q = parts.filter((x) => typeof x === 'string' && x.trim() !== '');
  return q.length ? `${String(value ?? '')} (${q.join(', ')})` : String(value ?? '');
}
