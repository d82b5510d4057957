/**
 * Which fields a read returns and in what shape: `mode` (light, basic, full), `fields`
 * (id always included), the key's tier, and `format` (json or flat). Pure functions.
 */
import type { EntityDef, FieldDef, Tier } from '../../mappings/types.ts';
import { forbidden, invalid } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { assertFieldsAllowed, keyTier, visibleFields } from '../services/tiers.ts';

export const MODES = ['light', 'basic', 'full'] as const;
export type Mode = (typeof MODES)[number];
export const FORMATS = ['json', 'flat'] as const;
export type Format = (typeof FORMATS)[number];

export interface Projection {
  fields: FieldDef[];
  /** advanced when any returned field is advanced (it sets the price). */
  tier: Tier;
  /** Rows carry the caller's tag names (personnel with mode=full or fields=tags). */
  tags: boolean;
}

/** Members every row carries besides its fields. */
const EXTRA = ['lead_source'] as const;
/** Per-caller members of a personnel row (spec record): crm_status always, tags when asked for. */
const CALLER_MEMBERS: Record<string, readonly string[]> = { personnel: ['crm_status', 'tags'] };

const outputFields = (def: EntityDef) => def.fields.filter((f) => f.output !== false);

/**
 * Resolves mode and fields for a key. Default mode is basic: advanced fields (and the
 * advanced price) only when asked for, by `mode=full` or by name in `fields`.
 */
export function project(def: EntityDef, key: KeyRecord, opts: { mode?: string; fields?: string }): Projection {
  const mode = (opts.mode ?? 'basic') as Mode;
  if (!MODES.includes(mode)) throw invalid({ field: 'mode', issue: 'invalid_value', expected: MODES });
  if (opts.fields !== undefined) {
    const names = opts.fields.split(',').map((s) => s.trim()).filter(Boolean);
    if (!names.length) throw invalid({ field: 'fields', issue: 'missing_value', expected: 'comma-separated field names' });
    const known = outputFields(def);
    const members = [...EXTRA, ...(CALLER_MEMBERS[def.name] ?? [])];
    const unknown = names.filter((n) => !known.some((f) => f.name === n) && !members.includes(n));
    if (unknown.length) throw invalid(unknown.map((n) => ({ field: `fields.${n}`, issue: 'unknown_field', expected: [...known.map((f) => f.name), ...members] })));
    assertFieldsAllowed(key, def, names.filter((n) => !members.includes(n)));
    const wanted = new Set(['id', ...names]);
    const fields = known.filter((f) => wanted.has(f.name));
    return { fields, tier: fields.some((f) => f.tier === 'advanced') ? 'advanced' : 'basic', tags: wanted.has('tags') && members.includes('tags') };
  }
  if (mode === 'full') {
    if (keyTier(key, def) !== 'advanced') throw forbidden('mode=full returns advanced-tier fields; this key is basic (use mode=basic)', 'mode', 'advanced_mode');
    return { fields: visibleFields(key, def), tier: 'advanced', tags: (CALLER_MEMBERS[def.name] ?? []).includes('tags') };
  }
  const fields = outputFields(def).filter((f) => f.tier !== 'advanced' && (mode === 'basic' || f.light));
  return { fields, tier: 'basic', tags: false };
}

export interface RowContext {
  source: string;
  retrievedAt: string;
  /** Extra members by field name (computed per caller: crm_status, tags). */
  extra?: Record<string, unknown>;
}

/** One row in JSON shape: every projected field (null when absent), plus lead_source. */
export function shapeRow(doc: Record<string, unknown>, fields: readonly FieldDef[], ctx: RowContext): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const f of fields) {
    const v = doc[f.name];
    row[f.name] = v === undefined ? (f.type === 'keywords' ? [] : null) : v;
  }
  row.lead_source = { source: ctx.source, retrieved_at: ctx.retrievedAt };
  if (ctx.extra) Object.assign(row, ctx.extra);
  return row;
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
