/**
 * Field tiers: what a key may see and sort by. The read API calls these before building a
 * query, so a basic key asking for an advanced field or sort gets 403 FORBIDDEN naming it,
 * and nothing is charged.
 */
import type { EntityDef, FieldDef, Tier } from '../../mappings/types.ts';
import { forbidden } from '../errors.ts';
import type { KeyRecord } from './keys.ts';

/** The tier of a key for one resource (the per-entity choice copied from the parent wins). */
export function keyTier(key: KeyRecord, def: EntityDef): Tier {
  return key.entity_field_tiers[def.name] ?? key.field_tier;
}

/** True when the field is advanced for this key's templates (field_tiers) or its definition. */
function isAdvanced(key: KeyRecord, def: EntityDef, f: FieldDef): boolean {
  // Templates list the output fields; filter-only attributes keep their definition's tier.
  const template = key.field_tiers[def.name];
  if (template && (template.advanced.includes(f.name) || template.basic.includes(f.name))) return template.advanced.includes(f.name);
  return f.tier === 'advanced';
}

/** The names among `fields` that are advanced for this key (none when the key is advanced). */
export function advancedAmong(key: KeyRecord, def: EntityDef, fields: readonly string[]): string[] {
  if (keyTier(key, def) === 'advanced') return [];
  return fields.filter((name) => {
    const f = def.fields.find((x) => x.name === name);
    return f !== undefined && isAdvanced(key, def, f);
  });
}

/**
 * 403 when any requested field is advanced and the key is basic for the resource; each detail
 * names the parameter as the caller wrote it (`fields.total_premiums`, `cf[participants]`).
 */
export function assertFieldsAllowed(key: KeyRecord, def: EntityDef, fields: readonly string[], detailField: (name: string) => string = (n) => `fields.${n}`): void {
  const advanced = advancedAmong(key, def, fields);
  if (advanced.length) {
    const e = forbidden(`${advanced.join(', ')} ${advanced.length > 1 ? 'are advanced-tier fields' : 'is an advanced-tier field'}; this key is basic`);
    e.details.splice(0, e.details.length, ...advanced.map((name) => ({ field: detailField(name), issue: 'advanced_field' as const })));
    throw e;
  }
}

/** 403 when sorting by an advanced column with a basic key. */
export function assertSortAllowed(key: KeyRecord, def: EntityDef, sortBy: string): void {
  const f = def.fields.find((x) => x.name === sortBy);
  if (f && keyTier(key, def) === 'basic' && isAdvanced(key, def, f)) {
    throw forbidden(`sort_by=${sortBy} is an advanced-tier column; this key is basic`, 'sort_by', 'advanced_sort');
  }
}

/** The output fields a key may receive for a resource, in definition order. */
export function visibleFields(key: KeyRecord, def: EntityDef): FieldDef[] {
  const basic = keyTier(key, def) === 'basic';
  return def.fields.filter((f) => f.output !== false && !(basic && isAdvanced(key, def, f)));
}
