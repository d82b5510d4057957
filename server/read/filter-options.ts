/**
 * Filter options, the pure part: which keys and resource filters exist and where each one's
 * values come from (a fixed list, the NAICS hierarchy, or the data). No I/O: the route asks
 * `option-values.ts` for data-derived values.
 */
import type { FilterKind } from '../../mappings/filters.ts';
import {
  INDUSTRY_HIERARCHY, findOptionKey, optionKeyOfParam, type IndustryNode, type OptionKey, type OptionValue,
} from '../../mappings/filter-options.ts';
import { fieldOf } from '../../mappings/index.ts';
import { DMAS, STATE_CODES } from '../../mappings/reference.ts';
import type { EntityDef, EntityName, Tier } from '../../mappings/types.ts';

/** Values present in the data: a terms aggregation on `field` of `entity`'s alias. */
export interface DataSource {
  readonly entity: EntityName;
  readonly field: string;
  /** Only these values are kept (the filter refuses others). */
  readonly known?: readonly string[];
}

/** Where a key's or filter's values come from; `none` for free-form filters (substrings, ids, text). */
export type ValuesPlan =
  | { readonly source: 'reference'; readonly values: readonly OptionValue[] }
  | { readonly source: 'industries'; readonly values: readonly IndustryNode[] }
  | { readonly source: 'data'; readonly data: DataSource }
  | { readonly source: 'none' };

/** The kind of a resource parameter: a filter kind, or the entity's own geography. */
export type OptionKind = FilterKind | 'states' | 'dmas' | 'choice';

/** One filter parameter of a resource, as the options endpoints describe it. */
export interface ResourceFilter {
  readonly param: string;
  readonly kind: OptionKind;
  /** advanced: narrowing by it needs an advanced key (it reads advanced-tier fields). */
  readonly tier: Tier;
  /** The parameter may be repeated (values OR'ed) instead of comma-separated. */
  readonly repeatable: boolean;
  /** The filter-option key holding the same options, when there is one. */
  readonly key?: string;
  readonly plan: ValuesPlan;
}

const plain = (values: readonly string[]): OptionValue[] => values.map((value) => ({ value }));
const BOOLEAN: ValuesPlan = { source: 'reference', values: plain(['true', 'false']) };

/** The values plan of a filter-option key. */
export function keyPlan(key: OptionKey): ValuesPlan {
  const s = key.source;
  if (s.kind === 'industries') return { source: 'industries', values: INDUSTRY_HIERARCHY };
  if (s.kind === 'data') return { source: 'data', data: { entity: s.entity, field: s.field, known: s.known } };
  return { source: 'reference', values: s.values };
}

/** A resource's own values, labelled from the key of the same options where it has labels. */
function labelled(values: readonly string[], key: OptionKey | undefined): OptionValue[] {
  const known = key?.source.kind === 'reference' ? new Map(key.source.values.map((v) => [v.value, v])) : new Map<string, OptionValue>();
  return values.map((value) => known.get(value) ?? { value });
}

/**
 * The plan of one filter row: the hierarchy for industries; data-derived options read on this
 * resource's own field (a personnel `carrier` counts contacts); the row's own allowlist; the
 * key's reference list; true/false for booleans; otherwise free-form.
 */
function filterPlan(def: EntityDef, param: string, opts: { kind: OptionKind; field: string; values?: readonly string[] }): ValuesPlan {
  const key = optionKeyOfParam(param);
  if (opts.kind === 'industries') return { source: 'industries', values: INDUSTRY_HIERARCHY };
  if (key?.source.kind === 'data') return { source: 'data', data: { entity: def.name, field: opts.field, known: key.source.known } };
  if (opts.values) return { source: 'reference', values: labelled(opts.values, key) };
  if (key?.source.kind === 'reference') return { source: 'reference', values: key.source.values };
  if (opts.kind === 'bool' || opts.kind === 'has') return BOOLEAN;
  return { source: 'none' };
}

const tierOf = (def: EntityDef, fields: readonly string[]): Tier => (fields.some((f) => fieldOf(def, f.split('.')[0])?.tier === 'advanced') ? 'advanced' : 'basic');

/** The entity's own geography (personnel: person_states, person_dmas, person_geo_mode) as filters. */
function ownGeoFilters(def: EntityDef): ResourceFilter[] {
  const g = def.ownGeo;
  if (!g) return [];
  const geo = (param: string, kind: OptionKind, field: string, values?: readonly string[]): ResourceFilter => ({
    param, kind, tier: tierOf(def, [field]), repeatable: false, key: optionKeyOfParam(param)?.key, plan: filterPlan(def, param, { kind, field, values }),
  });
  return [
    geo(g.states, 'states', g.fields.state, STATE_CODES),
    geo(g.dmas, 'dmas', g.fields.dma, DMAS),
    { param: g.mode, kind: 'choice', tier: 'basic', repeatable: false, plan: { source: 'reference', values: plain(['state', 'dma']) } },
  ];
}

/** Every filter parameter of a resource (its `filters` rows, then its own geography), in definition order. */
export function resourceFilters(def: EntityDef): ResourceFilter[] {
  const rows = def.filters.map((fd): ResourceFilter => ({
    param: fd.param,
    kind: fd.kind,
    tier: tierOf(def, fd.fields),
    repeatable: fd.repeatable ?? false,
    key: optionKeyOfParam(fd.param)?.key,
    plan: filterPlan(def, fd.param, { kind: fd.kind, field: fd.fields[0], values: fd.values }),
  }));
  return [...rows, ...ownGeoFilters(def)];
}

/** The filter-option key of this name, with its plan; undefined for an unknown name. */
export function optionKey(name: string): { key: OptionKey; plan: ValuesPlan } | undefined {
  const key = findOptionKey(name);
  return key && { key, plan: keyPlan(key) };
}
