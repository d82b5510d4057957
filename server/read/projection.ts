/**
 * Which fields a read returns and in what shape: `mode` (light, basic, full), `fields`
 * (id always included), the key's tier, and `format` (json or flat). Pure functions: the
 * authorize step resolves the projection, the decorate step shapes rows with it.
 */
import type { EntityDef, FieldDef, Tier } from '../../mappings/types.ts';
import { forbidden, type ErrorDetail } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { assertFieldsAllowed, keyTier, visibleFields } from '../services/tiers.ts';
import type { ShapeRequest } from './request.ts';

export interface Projection {
  fields: FieldDef[];
  /** advanced when any returned field is advanced (it sets the price). */
  tier: Tier;
  /** Rows carry lead_source (with a mode, or when `fields` names it). */
  leadSource: boolean;
  /** Rows carry crm_status (an entity with that member: with a mode, or when `fields` names it). */
  crmStatus: boolean;
  /** Rows carry the caller's tag names (an entity with a `tags` member, with mode=full or fields=tags). */
  tags: boolean;
}

/** Members every row carries besides its fields. */
const EXTRA = ['lead_source'] as const;

const outputFields = (def: EntityDef) => def.fields.filter((f) => f.output !== false);
/** Names `fields=` may ask for: output fields, lead_source and the entity's per-caller members. */
const members = (def: EntityDef): string[] => [...EXTRA, ...(def.callerMembers ?? [])];

/** Every name `fields=` accepts (the OpenAPI document lists them). */
export const fieldNames = (def: EntityDef): string[] => [...outputFields(def).map((f) => f.name), ...members(def)];

/** Parse-step check of `fields=`: every name is a field or member of the entity (400 naming each unknown one). */
export function checkFieldNames(def: EntityDef, names: readonly string[], problems: ErrorDetail[]): void {
  const known = fieldNames(def);
  for (const n of names) {
    if (!known.includes(n)) problems.push({ field: `fields.${n}`, issue: 'unknown_field', expected: known });
  }
}

/**
 * Resolves mode and fields for a key (names already checked by checkFieldNames): 403 for an
 * advanced field or mode=full with a basic key. Default mode is basic: advanced fields (and the
 * advanced price) only when asked for, by `mode=full` or by name in `fields`.
 */
export function project(def: EntityDef, key: KeyRecord, shape: Pick<ShapeRequest, 'mode' | 'fields'>): Projection {
  const hasTags = (def.callerMembers ?? []).includes('tags');
  const hasCrm = (def.callerMembers ?? []).includes('crm_status');
  if (shape.fields) {
    const extra = members(def);
    assertFieldsAllowed(key, def, shape.fields.filter((n) => !extra.includes(n)));
    const wanted = new Set(['id', ...shape.fields]);
    const fields = outputFields(def).filter((f) => wanted.has(f.name));
    // Exactly id and what was named: lead_source and the per-caller members only when named.
    const tier = fields.some((f) => f.tier === 'advanced') ? 'advanced' : 'basic';
    return { fields, tier, leadSource: wanted.has('lead_source'), crmStatus: hasCrm && wanted.has('crm_status'), tags: hasTags && wanted.has('tags') };
  }
  if (shape.mode === 'full') {
    if (keyTier(key, def) !== 'advanced') throw forbidden('mode=full returns advanced-tier fields; this key is basic (use mode=basic)', 'mode', 'advanced_mode');
    return { fields: visibleFields(key, def), tier: 'advanced', leadSource: true, crmStatus: hasCrm, tags: hasTags };
  }
  const fields = outputFields(def).filter((f) => f.tier !== 'advanced' && (shape.mode === 'basic' || f.light));
  return { fields, tier: 'basic', leadSource: true, crmStatus: hasCrm, tags: false };
}

export interface RowContext {
  /** lead_source.source; absent when the row does not carry lead_source. */
  source?: string;
  retrievedAt: string;
  /** Extra members by field name (computed per caller: crm_status, tags). */
  extra?: Record<string, unknown>;
}

/** One row in JSON shape: every projected field (null when absent), plus lead_source when the context names its source. */
export function shapeRow(doc: Record<string, unknown>, fields: readonly FieldDef[], ctx: RowContext): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const f of fields) {
    const v = doc[f.name];
    row[f.name] = v === undefined ? (f.type === 'keywords' ? [] : null) : v;
  }
  if (ctx.source !== undefined) row.lead_source = { source: ctx.source, retrieved_at: ctx.retrievedAt };
  if (ctx.extra) Object.assign(row, ctx.extra);
  return row;
}

/** The columns of a flat row (and of a CSV export) of this projection, in order: the fields, lead_source, the per-caller members. */
export function flatColumns(projection: Projection): string[] {
  const members = [...(projection.leadSource ? ['lead_source', 'lead_source_retrieved_at'] : []), ...(projection.crmStatus ? ['crm_status'] : []), ...(projection.tags ? ['tags'] : [])];
  return [...projection.fields.map((f) => f.name), ...members];
}

/** A value as a flat string: arrays joined with ';', objects as their members joined, null as ''. */
function flatValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(flatValue).join(';');
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).map(flatValue).join(';');
  return String(v);
}

/** format=flat: the same columns in the same order, every value a string. lead_source becomes two columns. */
export function flattenRow(row: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'lead_source' && v && typeof v === 'object') {
      const ls = v as { source?: string; retrieved_at?: string };
      out.lead_source = ls.source ?? '';
      out.lead_source_retrieved_at = ls.retrieved_at ?? '';
    } else out[k] = flatValue(v);
  }
  return out;
}
