/**
 * Personnel: contacts at companies (lead_type=company) and at broker offices
 * (lead_type=broker). Company-side and broker-side filter attributes are denormalized
 * from the parent at ingest, because Elasticsearch has no joins.
 */
import { csv, defineEntity, qualified, domainOf, derived, f, firstOf, joined } from './fields.ts';
import { COMPANY_SIDE, filter, labels } from './filters.ts';
import { EMAIL_STATUSES, EMPLOYEE_BANDS, FORM5500_ROLES, FUNDING_STATUSES, JOB_FUNCTIONS, LEAD_TYPES, SENIORITIES, STATE_CODES, seniorityLevels } from './reference.ts';
import { pathLevel, SECTORS, SUBSECTORS } from './industries.ts';

/** NAICS industry group of insurance brokerages: the industry of every broker contact's employer. */
export const BROKER_INDUSTRY = 'Agencies, Brokerages, and Other Insurance Related Activities';

export const personnel = defineEntity({
  name: 'personnel',
  label: 'contact',
  naturalKey: ['lead_type', 'email_address', 'full_name', 'company_id', 'broker_office_id'],
  defaultSort: 'last_name',
  defaultAutocomplete: 'full_name',
  autocomplete: {
    popularity: ['total_number_of_employees'],
    columns: {
      // "Ana Díaz (VP of Benefits, Acme Healthcare Inc.)": the contact with title and employer.
      full_name: { reads: ['title', 'company_name'], label: (d) => qualified(d.full_name, d.title, d.company_name) },
      // Titles are shared by many contacts: one suggestion per title.
      title: { reads: [], label: (d) => String(d.title ?? ''), distinct: true },
    },
  },
  geo: { state: 'company_state', dma: 'company_dma' },
  crm: { ein: 'company_ein', domain: 'company_domain' },
  leadSource: (d) => (typeof d.source_record === 'string' ? d.source_record : d.lead_type === 'broker' ? 'Broker directory' : 'Form 5500 contacts'),
  price: { basic: 500, advanced: 2000 },
  side: { param: 'lead_type', field: 'lead_type', values: LEAD_TYPES },
  callerMembers: ['crm_status', 'tags'],
  ownGeo: { states: 'person_states', dmas: 'person_dmas', mode: 'person_geo_mode', fields: { state: 'person_state', dma: 'person_dma' } },
  filters: [
    ...COMPANY_SIDE,
    filter('filing_year', 'year_or_latest', ['plan_years', 'filing_year']),
    filter('seniority', 'terms', 'seniority_levels', { values: SENIORITIES }),
    filter('job_function', 'terms', 'job_function', { values: JOB_FUNCTIONS }),
    filter('job_title', 'text', 'title'),
    filter('has_email', 'has', 'email_address'),
    filter('has_phone', 'has', 'phone_number'),
    filter('has_linkedin', 'has', 'person_linkedin_url'),
    filter('form5500_role', 'terms', 'form5500_role', { values: FORM5500_ROLES }),
    filter('company_eins', 'ein', 'company_ein'),
    filter('broker_office_ids', 'terms', 'related_office_ids'),
    filter('broker_ids', 'terms', 'related_broker_ids'),
    filter('long_tail_brokers', 'bool', 'long_tail_brokers'),
  ],
  lookalike: {
    features: [
      { name: 'job_function', field: 'job_function', kind: 'onehot', values: JOB_FUNCTIONS, weight: 3, description: 'Job function' },
      { name: 'employer_subsector', field: 'industry_path', pick: pathLevel(1), kind: 'onehot', values: SUBSECTORS, weight: 2.5, description: "NAICS subsector of the employer's industry" },
      { name: 'seniority', field: 'seniority_levels', kind: 'ordinal', values: SENIORITIES, weight: 2, description: 'Seniority (neighbouring levels count half)' },
      { name: 'employer_employee_band', field: 'employee_band', kind: 'ordinal', values: labels(EMPLOYEE_BANDS), weight: 1.5, description: "Employer's employee-count band" },
      { name: 'employer_state', field: 'company_state', kind: 'onehot', values: STATE_CODES, weight: 1, description: "Employer's state" },
      { name: 'form5500_role', field: 'form5500_role', kind: 'onehot', values: FORM5500_ROLES, weight: 0.5, description: 'Role on the Form 5500 filing' },
      { name: 'employer_sector', field: 'industry_path', pick: pathLevel(0), kind: 'onehot', values: SECTORS, weight: 0.5, description: "NAICS sector of the employer's industry" },
      { name: 'employer_funding_status', field: 'funding_status', kind: 'onehot', values: FUNDING_STATUSES, weight: 0.5, description: "Employer's funding status" },
      { name: 'employer_carriers', field: 'carriers', kind: 'hashed', dims: 16, weight: 0.5, description: "Employer's carriers" },
      { name: 'brokerage', field: 'broker_name', kind: 'hashed', dims: 16, weight: 0.5, description: 'Brokerage (broker contacts)' },
      { name: 'employer_dma', field: 'company_dma', kind: 'hashed', dims: 16, weight: 0.25, description: "Employer's DMA" },
    ],
  },
  joins: [
    { name: 'company', entity: 'companies', key: 'company_id' },
    { name: 'office', entity: 'broker-offices', key: 'broker_office_id' },
  ],
  rules: [
    (d) => (d.lead_type === 'company' && !d.company_id ? ['company_id', 'missing_required'] : null),
    (d) => (d.lead_type === 'broker' && !d.broker_office_id ? ['broker_office_id', 'missing_required'] : null),
    (d) => (d.lead_type === 'company' && d.broker_office_id ? ['broker_office_id', 'not_allowed_for_company_contact'] : null),
    (d) => (d.lead_type === 'broker' && d.company_id ? ['company_id', 'not_allowed_for_broker_contact'] : null),
    (d) => (!d.first_name && !d.last_name && !d.full_name ? ['full_name', 'missing_required'] : null),
  ],
  fields: [
    f('id', 'keyword', 'Contact id', csv(), { light: true }),
    f('first_name', 'keyword', 'First name', csv(), { light: true, cf: 'string', blank: true }),
    f('last_name', 'name', 'Last name', csv(), { light: true, sortable: true, cf: 'string', blank: true, search: 1 }),
    f('full_name', 'name', 'Full name', csv(), { light: true, cf: 'string', search: 3, autocomplete: true }),
    f('title', 'name', 'Job title', csv(), { light: true, cf: 'string', blank: true, search: 1, autocomplete: true }),
    f('job_description', 'text', 'Description of the role', csv(), { blank: true }),
    f('seniority', 'keyword', 'C-suite, VP-Director, Mid-Level or Entry-Level', csv(), { cf: 'exact', blank: true, enum: SENIORITIES }),
    f('seniority_levels', 'keywords', 'Levels by seniority value or title words (what the seniority filter matches)', derived((d) => seniorityLevels(d.seniority, d.title)), { output: false }),
    f('job_function', 'keyword', 'Job function', csv(), { cf: 'exact', blank: true, enum: JOB_FUNCTIONS }),
    f('email_address', 'keyword', 'Work email (exact, case-sensitive reverse lookup)', csv(), { cf: 'exact', blank: true, format: 'email' }),
    f('email_status', 'keyword', 'Email verification status', csv(), { cf: 'exact', blank: true, enum: EMAIL_STATUSES }),
    f('person_linkedin_url', 'keyword', 'LinkedIn profile URL (exact reverse lookup)', csv(), { cf: 'exact', blank: true, format: 'url' }),
    f('phone_number', 'keyword', 'Direct phone', csv(), { tier: 'advanced', cf: 'string', blank: true }),
    f('lead_type', 'keyword', 'company or broker', csv(true), { light: true, enum: LEAD_TYPES }),
    f('company_id', 'keyword', 'Employer company id (company contacts)', csv(), { blank: true }),
    f('broker_office_id', 'keyword', 'Broker office id (broker contacts)', csv(), { blank: true }),
    f('form5500_role', 'keyword', 'Role on the Form 5500 filing', csv(), { cf: 'exact', blank: true, enum: FORM5500_ROLES }),
    f('person_city', 'keyword', "The person's city", csv(), { cf: 'string', blank: true }),
    f('person_state', 'keyword', "The person's USPS state", csv(), { cf: 'exact', blank: true, format: 'usps_state' }),
    f('person_dma', 'keyword', "The person's DMA", csv(), { cf: 'string', blank: true }),
    f('last_updated_at', 'date', 'When the upstream record last changed', csv(), { format: 'iso_date' }),
    f('source_record', 'keyword', 'Upstream record the row was built from (lead_source.source), e.g. form5500:F_5500:2023:<ACK_ID>', csv(), { output: false }),
    // Company side: the employer, or for broker contacts the broker's own corporate entity.
    f('company_name', 'name', 'Employer name', joined('company:company_name', 'office:broker_name'), { light: true, sortable: true, cf: 'string', blank: true }),
    f('company_ein', 'keyword', 'Employer EIN', joined('company:ein'), { cf: 'exact', blank: true }),
    f('company_city', 'keyword', 'Employer city', joined('company:city', 'office:city'), { cf: 'string', blank: true }),
    f('company_state', 'keyword', 'Employer state', joined('company:state', 'office:state'), { cf: 'exact', blank: true }),
    f('company_dma', 'keyword', 'Employer DMA', joined('company:dma', 'office:dma'), { output: false }),
    f('employer_industry', 'keyword', "The employer company's industry (company contacts)", joined('company:company_industry'), { output: false }),
    f('company_industry', 'keyword', 'Employer industry', derived((d) => (d.lead_type === 'broker' ? BROKER_INDUSTRY : (d.employer_industry ?? null))), { cf: 'string', blank: true }),
    f('company_website', 'keyword', 'Employer website', joined('company:website', 'office:website'), { cf: 'string', blank: true }),
    f('company_domain', 'keyword', 'Normalized domain of the employer website (CRM matching)', domainOf('company_website'), { output: false }),
    f('company_linkedin', 'keyword', 'Employer LinkedIn URL (the broker firm\'s for broker contacts)', joined('company:company_linkedin', 'office:broker_linkedin'), { blank: true }),
    f('total_number_of_employees', 'integer', 'Employer employees', joined('company:total_number_of_employees'), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true }),
    f('industry_path', 'keywords', 'Employer industry path', joined('company:industry_path'), { output: false }),
    f('employee_band', 'keyword', 'Employer employee band', joined('company:employee_band'), { output: false }),
    f('filing_year', 'integer', "Year of the employer's latest Form 5500 filing", joined('company:filing_year'), { tier: 'advanced', output: false }),
    f('plan_years', 'keywords', 'Every plan year the employer filed for', joined('company:plan_years'), { output: false }),
    f('funding_status', 'keyword', 'Employer funding status', joined('company:funding_status'), { output: false }),
    f('renewal_month', 'keyword', 'Employer renewal month', joined('company:renewal_month'), { output: false }),
    f('short_form', 'boolean', 'Employer filed 5500-SF', joined('company:short_form'), { output: false }),
    f('long_tail', 'boolean', 'Employer is a long-tail company', joined('company:long_tail'), { output: false }),
    f('carriers', 'keywords', 'Employer carriers', joined('company:carriers'), { output: false }),
    f('benefit_types', 'keywords', 'Employer insurance lines', joined('company:benefit_types'), { output: false }),
    f('brokers', 'keywords', "Employer's brokers", joined('company:brokers'), { output: false }),
    f('broker_offices', 'keywords', "Employer's broker offices (names)", joined('company:broker_offices'), { output: false }),
    f('signals', 'keywords', 'Employer signals', joined('company:signals', 'office:signals'), { tier: 'advanced', blank: true }),
    // Broker side.
    f('broker_name', 'keyword', 'Broker (broker contacts)', joined('office:broker_name'), { cf: 'string', blank: true }),
    f('broker_office_city', 'keyword', 'Office city (broker contacts)', joined('office:city'), { blank: true }),
    f('broker_office_state', 'keyword', 'Office state (broker contacts)', joined('office:state'), { blank: true }),
    f('long_tail_brokers', 'boolean', 'Contact works at a local broker', joined('office:long_tail'), { output: false }),
    // Relationship keys for broker_office_ids / broker_ids filters: the contact's own office,
    // or the employer's broker offices.
    f('related_office_ids', 'keywords', 'Own office or employer broker offices', derived((d) => firstOf(d, 'broker_office_id') ? [d.broker_office_id] : (d.company_office_ids ?? [])), { output: false }),
    f('company_office_ids', 'keywords', 'Employer broker office ids', joined('company:broker_office_ids'), { output: false }),
    f('related_broker_ids', 'keywords', 'Own broker or employer brokers', joined('company:broker_ids', 'office:broker_id'), { output: false }),
  ],
});
