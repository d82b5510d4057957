/** Companies: plan sponsors from Form 5500 filings. */
import { csv, defineEntity, qualified, domainOf, derived, f, joined, num } from './fields.ts';
import { industryPath, findIndustry, pathLevel, SECTORS, SUBSECTORS } from './industries.ts';
import {
  ASSET_TIERS_401K, BENEFIT_TYPES, EMPLOYEE_BANDS, FORM_TYPES, FUNDING_STATUSES, MONTHS, PREMIUM_TIERS,
  RELATIONSHIP_DENSITY, STATE_CODES, bandOf, type Band,
} from './reference.ts';
import { SIGNAL_NAMES } from './signals.ts';
import { COMPANY_SIDE, filter, labels } from './filters.ts';

/** Plans under 100 participants: the small-group "long tail" of the market. */
export const LONG_TAIL_PARTICIPANTS = 100;

/** Line A of the Form 5500: who sponsors the plan. */
export const PLAN_ENTITIES: readonly string[] = ['single-employer', 'multiemployer', 'multiple-employer'];

/** Plan size bands (active participants): a lookalike feature. */
export const PLAN_SIZE_BANDS: readonly Band[] = [['<100', 0, 100], ['100-499', 100, 500], ['500-999', 500, 1000], ['1000-4999', 1000, 5000], ['5000+', 5000, Number.POSITIVE_INFINITY]];

export const companies = defineEntity({
  name: 'companies',
  label: 'company',
  naturalKey: ['ein'],
  crm: { ein: 'ein', domain: 'domain' },
  defaultSort: 'company_name',
  defaultAutocomplete: 'company_name',
  autocomplete: {
    popularity: ['total_number_of_employees', 'participants'],
    columns: {
      company_name: { reads: ['city', 'state'], label: (d) => qualified(d.company_name, d.city, d.state) },
      website: { reads: ['company_name', 'city', 'state'], label: (d) => qualified(d.website, d.company_name, d.city, d.state), domain: 'domain' },
    },
  },
  geo: { state: 'state', dma: 'dma' },
  leadSource: (d) => (typeof d.source_record === 'string' ? d.source_record : `Form 5500${d.filing_year ? ` (${d.filing_year})` : ''}`),
  price: { basic: 250, advanced: 1000 },
  filters: [
    ...COMPANY_SIDE.map((x) => (x.param === 'broker_office' ? filter('broker_office', 'id_or_name', ['broker_office_ids', 'broker_offices']) : x)),
    // plan_years matches; filing_year (advanced tier) makes it an advanced filter.
    filter('filing_year', 'year_or_latest', ['plan_years', 'filing_year']),
    filter('plan_entity', 'terms', 'plan_entity', { values: PLAN_ENTITIES }),
    filter('asset_tiers_401k', 'terms', 'asset_tier_401k', { values: labels(ASSET_TIERS_401K) }),
    filter('broker_office_ids', 'terms', 'broker_office_ids'),
    filter('domain', 'domain', 'domain'),
    filter('domain_contains', 'substring', ['website', 'domain'], { whole: true }),
    filter('long_tail_brokers', 'bool', 'long_tail_brokers'),
    filter('premium_tiers', 'terms', 'premium_tier', { values: labels(PREMIUM_TIERS) }),
    filter('primary_broker', 'substring', 'primary_broker', { whole: true }),
    filter('primary_broker_office', 'substring', 'primary_broker_office', { whole: true, repeatable: true }),
    filter('relationship_density', 'terms', 'relationship_density', { values: labels(RELATIONSHIP_DENSITY) }),
  ],
  lookalike: {
    features: [
      { name: 'industry_subsector', field: 'industry_path', pick: pathLevel(1), kind: 'onehot', values: SUBSECTORS, weight: 5, description: 'NAICS subsector of the industry' },
      { name: 'employee_band', field: 'employee_band', kind: 'ordinal', values: labels(EMPLOYEE_BANDS), weight: 3, description: 'Employee-count band (neighbouring bands count half)' },
      { name: 'industry_sector', field: 'industry_path', pick: pathLevel(0), kind: 'onehot', values: SECTORS, weight: 1, description: 'NAICS sector' },
      { name: 'industry_group', field: 'company_industry', kind: 'hashed', dims: 16, weight: 1, description: 'NAICS industry group' },
      { name: 'premium_tier', field: 'premium_tier', kind: 'ordinal', values: labels(PREMIUM_TIERS), weight: 1, description: 'Annual premium tier' },
      { name: 'plan_size', field: 'participants', pick: (v) => bandOf(PLAN_SIZE_BANDS, v), kind: 'ordinal', values: labels(PLAN_SIZE_BANDS), weight: 1, description: 'Active participants band' },
      { name: 'state', field: 'state', kind: 'onehot', values: STATE_CODES, weight: 1, description: 'State of the sponsor' },
      { name: 'funding_status', field: 'funding_status', kind: 'onehot', values: FUNDING_STATUSES, weight: 1, description: 'Self-Funded or Fully Insured' },
      { name: 'brokers', field: 'brokers', kind: 'hashed', dims: 16, weight: 1, description: 'Brokers with a relationship' },
      { name: 'benefit_types', field: 'benefit_types', kind: 'multi', values: BENEFIT_TYPES, weight: 0.75, description: 'Insurance lines on Schedule A' },
      { name: 'carriers', field: 'carriers', kind: 'hashed', dims: 16, weight: 0.75, description: 'Insurance carriers on Schedule A' },
      { name: 'dma', field: 'dma', kind: 'hashed', dims: 16, weight: 0.5, description: 'Nielsen DMA' },
    ],
  },
  joins: [
    { name: 'offices', entity: 'broker-offices', key: 'broker_office_ids' },
    { name: 'primary_office', entity: 'broker-offices', key: 'primary_broker_office_id' },
  ],
  fields: [
    f('id', 'keyword', 'Company id', csv(), { light: true }),
    f('company_name', 'name', 'Plan sponsor name', csv(true), { light: true, sortable: true, cf: 'string', search: 3, autocomplete: true }),
    f('dba_name', 'name', 'Doing-business-as name of the sponsor (line 1a), searched as an alternate name', csv(), { cf: 'string', blank: true, search: 2 }),
    f('ein', 'keyword', 'Employer identification number, 9 digits', csv(), { light: true, cf: 'exact', blank: true, format: 'ein' }),
    f('website', 'keyword', 'Company website', csv(), { light: true, cf: 'string', blank: true, autocomplete: true, format: 'url' }),
    f('domain', 'keyword', 'Normalized domain of the website', domainOf('website'), { cf: 'exact', blank: true }),
    f('company_industry', 'keyword', 'Industry (NAICS industry group title)', csv(), { cf: 'string', blank: true }),
    f('naics_code', 'keyword', 'NAICS industry group code', derived((d) => findIndustry(String(d.company_industry ?? ''))?.code ?? null), { cf: 'exact' }),
    f('industry_path', 'keywords', 'Sector, subsector and industry group', derived((d) => industryPath(d.company_industry as string)), { output: false }),
    f('company_linkedin', 'keyword', 'Company LinkedIn URL', csv(), { blank: true, format: 'url' }),
    f('city', 'keyword', 'City of the sponsor address', csv(), { cf: 'string', blank: true }),
    f('state', 'keyword', 'USPS state code', csv(), { cf: 'exact', blank: true, format: 'usps_state' }),
    f('zip', 'keyword', 'ZIP code', csv(), { cf: 'exact', blank: true }),
    f('dma', 'keyword', 'Nielsen DMA of the address', csv(), { cf: 'string', blank: true }),
    f('phone_number', 'keyword', 'Sponsor phone', csv(), { tier: 'advanced', cf: 'string', blank: true }),
    f('admin_email', 'keyword', 'Plan administrator email', csv(), { tier: 'advanced', cf: 'string', blank: true, format: 'email' }),
    f('plan_name', 'text', 'Name of the main welfare plan', csv(), { blank: true }),
    f('form_type', 'keyword', 'Form filed: 5500 or 5500-SF', csv(), { cf: 'exact', enum: FORM_TYPES }),
    f('filing_year', 'integer', 'Plan year of the latest filing', csv(true), { tier: 'advanced', sortable: true, cf: 'numeric', min: 1975, max: 2100 }),
    // The list of plan years and the first one hold the latest year too (advanced-tier filing_year): not output, used by filing_year=YYYY.
    f('filing_years', 'keywords', 'Every plan year the sponsor filed for (filing_year=YYYY selects them)', csv(), { output: false }),
    f('plan_years', 'keywords', 'filing_years with filing_year (rows loaded without the list have their latest year)', derived((d) => [...new Set([...(Array.isArray(d.filing_years) ? d.filing_years : []), d.filing_year].filter((v) => v !== null && v !== undefined && v !== '').map(String))]), { output: false }),
    f('first_filing_year', 'integer', 'First plan year the sponsor filed for', csv(), { output: false, min: 1975, max: 2100 }),
    f('plan_entity', 'keyword', 'single-employer, multiemployer or multiple-employer (PEO, MEWA) plan sponsor', csv(), { cf: 'exact', blank: true, enum: PLAN_ENTITIES }),
    f('total_premiums', 'long', 'Annual premiums across Schedule A contracts, dollars', csv(), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('total_number_of_employees', 'integer', 'Employees', csv(), { sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('broker_commissions', 'long', 'Broker commissions and fees on Schedule A, dollars', csv(), { cf: 'numeric', blank: true, min: 0 }),
    f('participants', 'integer', 'Active participants at year end', csv(), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('participant_growth', 'double', 'Participant growth over the prior year, percent', csv(), { tier: 'advanced', sortable: true, cf: 'percent', blank: true, min: -100, max: 100000 }),
    f('funding_status', 'keyword', 'Self-Funded or Fully Insured', csv(), { cf: 'exact', blank: true, enum: FUNDING_STATUSES }),
    f('funding_by_benefit', 'keywords', 'Funding per benefit, e.g. "Medical: Self-Funded"', csv(), { cf: 'string', blank: true }),
    f('renewal_month', 'keyword', 'Month the plan renews', csv(), { cf: 'exact', blank: true, enum: MONTHS }),
    f('benefit_types', 'keywords', 'Insurance lines on Schedule A', csv(), { cf: 'string', blank: true, enum: BENEFIT_TYPES }),
    f('carriers', 'keywords', 'Insurance carriers on Schedule A', csv(), { cf: 'string', blank: true }),
    f('plan_assets_401k', 'long', '401(k) plan assets, dollars', csv(), { cf: 'numeric', blank: true, min: 0 }),
    f('asset_tier_401k', 'keyword', '401(k) asset tier', derived((d) => bandOf(ASSET_TIERS_401K, num(d, 'plan_assets_401k'))), { cf: 'exact', blank: true }),
    f('broker_office_ids', 'keywords', 'Broker offices serving the company', csv(), { blank: true }),
    f('primary_broker_office_id', 'keyword', 'Office of the broker of record', csv(), { blank: true }),
    f('primary_broker_office', 'keyword', 'Office name of the broker of record', joined('primary_office:office_name'), { cf: 'string', blank: true }),
    f('primary_broker', 'keyword', 'Broker of record', joined('primary_office:broker_name'), { cf: 'string', blank: true }),
    f('primary_broker_id', 'keyword', 'Broker of record id', joined('primary_office:broker_id'), { output: false }),
    f('brokers', 'keywords', 'Every broker with a relationship', joined('offices:broker_name'), { cf: 'string', blank: true }),
    f('broker_ids', 'keywords', 'Ids of every broker with a relationship', joined('offices:broker_id'), { output: false }),
    f('broker_offices', 'keywords', 'Names of every office with a relationship', joined('offices:office_name'), { output: false }),
    f('relationship_density', 'keyword', 'Band of the number of broker relationships', derived((d) => bandOf(RELATIONSHIP_DENSITY, Array.isArray(d.broker_office_ids) ? d.broker_office_ids.length : 0)), { cf: 'exact' }),
    f('long_tail_brokers', 'boolean', 'Broker of record is a local (long-tail) broker', joined('primary_office:long_tail'), { output: false }),
    f('long_tail', 'boolean', `Plan under ${LONG_TAIL_PARTICIPANTS} participants`, derived((d) => { const p = num(d, 'participants'); return p === null ? null : p < LONG_TAIL_PARTICIPANTS; }), { output: false }),
    f('short_form', 'boolean', 'Filed the short form 5500-SF', derived((d) => (d.form_type ? d.form_type === '5500-SF' : null)), { output: false }),
    f('employee_band', 'keyword', 'Employee-count band', derived((d) => bandOf(EMPLOYEE_BANDS, num(d, 'total_number_of_employees'))), { cf: 'exact', blank: true }),
    f('premium_tier', 'keyword', 'Premium tier', derived((d) => bandOf(PREMIUM_TIERS, num(d, 'total_premiums'))), { cf: 'exact', blank: true }),
    f('signals', 'keywords', 'Signals on the company', csv(), { blank: true, enum: SIGNAL_NAMES }),
    f('last_updated_at', 'date', 'When the upstream record last changed', csv(), { format: 'iso_date' }),
    f('source_record', 'keyword', 'Upstream record the row was built from (lead_source.source), e.g. form5500:F_5500:2023:<ACK_ID>', csv(), { output: false }),
    f('source_filings', 'keywords', 'Every filing the row was built from: form5500:<dataset>:<plan year>:<ACK_ID>:<file>', csv(), { blank: true }),
  ],
});
