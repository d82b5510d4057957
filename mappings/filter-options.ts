/**
 * The filter-option keys of `GET /v1/filter-options/{key}`: what each key enumerates and where
 * its values come from. Pure data over the reference tables; the server answers from it.
 *
 * - `reference`: a fixed list (reference tables, the signal catalogue), with labels where the
 *   value is a code (state names, signal descriptions);
 * - `industries`: the NAICS hierarchy (sector → subsector → industry group);
 * - `data`: the values present in the loaded data, with counts (a terms aggregation on `field`
 *   of `entity`; `known` keeps only values the filter accepts).
 *
 * `params` names the list parameters a key serves, so a resource's filter finds its options.
 */
import { INDUSTRIES } from './industries.ts';
import { labels } from './filters.ts';
import {
  ASSET_TIERS_401K, BENEFIT_TYPES, BROKERAGE_CLASSES, CLIENT_COUNT_BANDS, COMMISSION_TIERS, DMAS, EMPLOYEE_BANDS,
  FORM5500_ROLES, FUNDING_STATUSES, JOB_FUNCTIONS, MONTHS, PREMIUM_TIERS, RELATIONSHIP_DENSITY, SENIORITIES, US_STATES,
} from './reference.ts';
import { SIGNALS } from './signals.ts';
import type { EntityName } from './types.ts';

/** One option: the value to send, and a label or category where the value alone says little. */
export interface OptionValue {
  readonly value: string;
  readonly label?: string;
  readonly category?: string;
}

/** A node of the industry hierarchy; every `value` is a label `industries=` accepts. */
export interface IndustryNode {
  readonly value: string;
  readonly level: 'sector' | 'subsector' | 'group';
  readonly code: string;
  readonly children?: readonly IndustryNode[];
}

/** Where the values of a key come from. */
export type OptionSource =
  | { readonly kind: 'reference'; readonly values: readonly OptionValue[] }
  | { readonly kind: 'industries' }
  | { readonly kind: 'data'; readonly entity: EntityName; readonly field: string; readonly known?: readonly string[] };

/** A filter-option key. */
export interface OptionKey {
  readonly key: string;
  readonly source: OptionSource;
  /** The list parameters these options are values of (on any resource that has them). */
  readonly params: readonly string[];
}

const plain = (values: readonly string[]): OptionValue[] => values.map((value) => ({ value }));
const ref = (values: readonly OptionValue[]): OptionSource => ({ kind: 'reference', values });
const option = (key: string, source: OptionSource, params: readonly string[] = [key]): OptionKey => Object.freeze({ key, source, params });

/** Every key, in the order `GET /v1/filter-options` lists them. */
export const OPTION_KEYS: readonly OptionKey[] = Object.freeze([
  option('industries', { kind: 'industries' }),
  option('signals', ref(SIGNALS.map((s) => ({ value: s.name, label: s.description, category: s.category })))),
  option('job_function', ref(plain(JOB_FUNCTIONS))),
  option('seniority', ref(plain(SENIORITIES))),
  option('funding_status', ref(plain(FUNDING_STATUSES))),
  option('states', ref(Object.entries(US_STATES).map(([value, label]) => ({ value, label }))), ['states', 'person_states']),
  // DMAs and carriers are open-ended in real filings: what the loaded companies hold, with counts.
  option('dmas', { kind: 'data', entity: 'companies', field: 'dma', known: DMAS }, ['dmas', 'person_dmas']),
  option('carriers', { kind: 'data', entity: 'companies', field: 'carriers' }, ['carrier', 'carrier_search']),
  option('benefit_types', ref(plain(BENEFIT_TYPES)), ['benefit_type']),
  option('employee_bands', ref(plain(labels(EMPLOYEE_BANDS)))),
  option('premium_tiers', ref(plain(labels(PREMIUM_TIERS)))),
  option('asset_tiers_401k', ref(plain(labels(ASSET_TIERS_401K)))),
  option('renewal_month', ref(plain(MONTHS))),
  option('relationship_density', ref(plain(labels(RELATIONSHIP_DENSITY)))),
  option('brokerage_class', ref(plain(BROKERAGE_CLASSES))),
  option('client_count_bands', ref(plain(labels(CLIENT_COUNT_BANDS)))),
  option('commission_tiers', ref(plain(labels(COMMISSION_TIERS)))),
  option('form5500_role', ref(plain(FORM5500_ROLES))),
]);

export const OPTION_KEY_NAMES: readonly string[] = Object.freeze(OPTION_KEYS.map((k) => k.key));
const byKey = new Map(OPTION_KEYS.map((k) => [k.key, k]));
const byParam = new Map(OPTION_KEYS.flatMap((k) => k.params.map((p) => [p, k] as const)));

/** The key of this name, or undefined. */
export const findOptionKey = (key: string): OptionKey | undefined => byKey.get(key);

/** The key whose options are values of a list parameter (e.g. `carrier` → carriers), or undefined. */
export const optionKeyOfParam = (param: string): OptionKey | undefined => byParam.get(param);

/** The code of a sector: its two-digit prefix, or the range of a combined sector ("31-33"). */
function sectorCode(codes: readonly string[]): string {
  const prefixes = [...new Set(codes.map((c) => c.slice(0, 2)))].sort();
  return prefixes.length > 1 ? `${prefixes[0]}-${prefixes[prefixes.length - 1]}` : prefixes[0];
}

function buildHierarchy(): IndustryNode[] {
  // Insertion order follows INDUSTRIES (sorted by code), so the tree is in NAICS order.
  const sectors = new Map<string, Map<string, { code: string; groups: IndustryNode[] }>>();
  const sectorCodes = new Map<string, string[]>();
  for (const ind of INDUSTRIES) {
    const [sector, subsector] = ind.path;
    if (!sectors.has(sector)) sectors.set(sector, new Map());
    sectorCodes.set(sector, [...(sectorCodes.get(sector) ?? []), ind.code]);
    const subs = sectors.get(sector)!;
    if (!subs.has(subsector)) subs.set(subsector, { code: ind.code.slice(0, 3), groups: [] });
    subs.get(subsector)!.groups.push({ value: ind.label, level: 'group', code: ind.code });
  }
  return [...sectors].map(([sector, subs]) => ({
    value: sector,
    level: 'sector',
    code: sectorCode(sectorCodes.get(sector)!),
    children: [...subs].map(([subsector, s]) => ({ value: subsector, level: 'subsector', code: s.code, children: s.groups })),
  }));
}

/** The NAICS hierarchy of the `industries` key. */
export const INDUSTRY_HIERARCHY: readonly IndustryNode[] = Object.freeze(buildHierarchy());

/** Every label of the hierarchy, sectors, subsectors and groups (each one `industries=` accepts). */
export function industryLabelsOf(nodes: readonly IndustryNode[] = INDUSTRY_HIERARCHY): string[] {
  return nodes.flatMap((n) => [n.value, ...industryLabelsOf(n.children ?? [])]);
}
