/**
 * The resource-specific list filters of the spec, as data: one row per parameter, naming its
 * kind (how values are read and matched, see server/read/filters.ts) and the fields it
 * matches. A new filter is a row here.
 */
import type { EntityName } from './types.ts';
import {
  ASSET_TIERS_401K, BENEFIT_TYPES, BROKERAGE_CLASSES, CLIENT_COUNT_BANDS, COMMISSION_TIERS, EMPLOYEE_BANDS,
  FORM5500_ROLES, FUNDING_STATUSES, JOB_FUNCTIONS, MONTHS, PREMIUM_TIERS, RELATIONSHIP_DENSITY, SENIORITIES,
} from './reference.ts';

export type FilterKind =
  /** Comma-separated exact values (checked against `values` when given). */
  | 'terms'
  /** true/false on a boolean field. */
  | 'bool'
  /** true: the field has a value; false: it has none. */
  | 'has'
  /** Case-insensitive substring of any of the fields; comma-separated values OR'ed (unless `whole`). */
  | 'substring'
  /** Comma-separated industry labels, each expanded across its NAICS category. */
  | 'industries'
  /** A domain or URL, normalized, matched exactly. */
  | 'domain'
  /** EINs, with or without the dash, matched exactly. */
  | 'ein'
  /** An id (exact, on `fields[0]`) or a name (substring, on `fields[1]`). */
  | 'id_or_name'
  /**
   * A year, or `latest` (every document holds its latest filing). Broker and office figures
   * are aggregated over the latest filings only, so there `values` is just `latest`.
   */
  | 'year_or_latest'
  /** Free text matched by words. */
  | 'text';

export interface FilterDef {
  readonly param: string;
  readonly kind: FilterKind;
  readonly fields: readonly string[];
  readonly values?: readonly string[];
  /** The parameter may be repeated (values OR'ed), instead of comma-split. */
  readonly repeatable?: boolean;
  /** Values are not comma-split (a comma may be part of one value). */
  readonly whole?: boolean;
}

const labels = (bands: readonly (readonly [string, number, number])[]) => bands.map((b) => b[0]);
const f = (param: string, kind: FilterKind, fields: string | readonly string[], extra: Omit<FilterDef, 'param' | 'kind' | 'fields'> = {}): FilterDef =>
  Object.freeze({ param, kind, fields: typeof fields === 'string' ? [fields] : fields, ...extra });

/** Company-side filters shared by companies and personnel (on the contact's denormalized copy). */
const COMPANY_SIDE: FilterDef[] = [
  f('industries', 'industries', 'industry_path'),
  f('employee_bands', 'terms', 'employee_band', { values: labels(EMPLOYEE_BANDS) }),
  f('funding_status', 'terms', 'funding_status', { values: FUNDING_STATUSES }),
  f('renewal_month', 'terms', 'renewal_month', { values: MONTHS }),
  f('short_form', 'bool', 'short_form'),
  f('long_tail', 'bool', 'long_tail'),
  f('broker', 'substring', 'brokers'),
  f('broker_office', 'id_or_name', ['company_office_ids', 'broker_offices']),
  f('carrier', 'substring', 'carriers'),
  f('benefit_type', 'terms', 'benefit_types', { values: BENEFIT_TYPES }),
];

export const FILTERS: Readonly<Record<EntityName, readonly FilterDef[]>> = Object.freeze({
  companies: [
    ...COMPANY_SIDE.map((x) => (x.param === 'broker_office' ? f('broker_office', 'id_or_name', ['broker_office_ids', 'broker_offices']) : x)),
    f('filing_year', 'year_or_latest', 'filing_year'),
    f('asset_tiers_401k', 'terms', 'asset_tier_401k', { values: labels(ASSET_TIERS_401K) }),
    f('broker_office_ids', 'terms', 'broker_office_ids'),
    f('domain', 'domain', 'domain'),
    f('domain_contains', 'substring', ['website', 'domain'], { whole: true }),
    f('long_tail_brokers', 'bool', 'long_tail_brokers'),
    f('premium_tiers', 'terms', 'premium_tier', { values: labels(PREMIUM_TIERS) }),
    f('primary_broker', 'substring', 'primary_broker', { whole: true }),
    f('primary_broker_office', 'substring', 'primary_broker_office', { whole: true, repeatable: true }),
    f('relationship_density', 'terms', 'relationship_density', { values: labels(RELATIONSHIP_DENSITY) }),
  ],
  brokers: [
    f('filing_year', 'year_or_latest', [], { values: ['latest'] }),
    f('long_tail', 'bool', 'long_tail'),
    f('brokerage_class', 'terms', 'brokerage_class', { values: BROKERAGE_CLASSES }),
    f('client_count_bands', 'terms', 'client_count_band', { values: labels(CLIENT_COUNT_BANDS) }),
  ],
  'broker-offices': [
    f('filing_year', 'year_or_latest', [], { values: ['latest'] }),
    f('long_tail', 'bool', 'long_tail'),
    f('broker_ids', 'terms', 'broker_id'),
    f('broker_office', 'id_or_name', ['id', 'office_name.raw']),
    f('brokerage_class', 'terms', 'brokerage_class', { values: BROKERAGE_CLASSES }),
    f('carrier_search', 'substring', 'carriers', { whole: true }),
    f('client_count_bands', 'terms', 'client_count_band', { values: labels(CLIENT_COUNT_BANDS) }),
    f('commission_tiers', 'terms', 'commission_tier', { values: labels(COMMISSION_TIERS) }),
    f('employee_coverage', 'substring', 'employee_coverage'),
    f('industry_coverage', 'substring', 'industry_coverage'),
  ],
  personnel: [
    ...COMPANY_SIDE,
    f('filing_year', 'year_or_latest', 'filing_year'),
    f('seniority', 'terms', 'seniority_levels', { values: SENIORITIES }),
    f('job_function', 'terms', 'job_function', { values: JOB_FUNCTIONS }),
    f('job_title', 'text', 'title'),
    f('has_email', 'has', 'email_address'),
    f('has_phone', 'has', 'phone_number'),
    f('has_linkedin', 'has', 'person_linkedin_url'),
    f('form5500_role', 'terms', 'form5500_role', { values: FORM5500_ROLES }),
    f('company_eins', 'ein', 'company_ein'),
    f('broker_office_ids', 'terms', 'related_office_ids'),
    f('broker_ids', 'terms', 'related_broker_ids'),
    f('long_tail_brokers', 'bool', 'long_tail_brokers'),
  ],
});
