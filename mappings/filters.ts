/**
 * The vocabulary of resource-specific list filters: one row per parameter, naming its kind (how
 * values are read and matched, see server/read/filters.ts) and the fields it matches. Each
 * entity declares its rows in its definition (`filters`); a new filter is a row there.
 */
import { BENEFIT_TYPES, EMPLOYEE_BANDS, FUNDING_STATUSES, MONTHS } from './reference.ts';

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

export const labels = (bands: readonly (readonly [string, number, number])[]) => bands.map((b) => b[0]);
/** One filter row. */
export const filter = (param: string, kind: FilterKind, fields: string | readonly string[], extra: Omit<FilterDef, 'param' | 'kind' | 'fields'> = {}): FilterDef =>
  Object.freeze({ param, kind, fields: typeof fields === 'string' ? [fields] : fields, ...extra });

/** Company-side filters shared by companies and personnel (on the contact's denormalized copy). */
export const COMPANY_SIDE: readonly FilterDef[] = [
  filter('industries', 'industries', 'industry_path'),
  filter('employee_bands', 'terms', 'employee_band', { values: labels(EMPLOYEE_BANDS) }),
  filter('funding_status', 'terms', 'funding_status', { values: FUNDING_STATUSES }),
  filter('renewal_month', 'terms', 'renewal_month', { values: MONTHS }),
  filter('short_form', 'bool', 'short_form'),
  filter('long_tail', 'bool', 'long_tail'),
  filter('broker', 'substring', 'brokers'),
  filter('broker_office', 'id_or_name', ['company_office_ids', 'broker_offices']),
  filter('carrier', 'substring', 'carriers'),
  filter('benefit_type', 'terms', 'benefit_types', { values: BENEFIT_TYPES }),
];
