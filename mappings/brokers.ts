/** Brokers: brokerages (the corporate entity behind broker offices). */
import { csv, defineEntity, qualified, domainOf, derived, f, num } from './fields.ts';
import { BROKERAGE_CLASSES, CLIENT_COUNT_BANDS, bandOf } from './reference.ts';
import { LINES_OF_BUSINESS } from './reference.ts';
import { SIGNAL_NAMES } from './signals.ts';
import { filter, labels } from './filters.ts';

export const brokers = defineEntity({
  name: 'brokers',
  label: 'broker',
  naturalKey: ['broker_name'],
  defaultSort: 'broker_name',
  defaultAutocomplete: 'broker_name',
  autocomplete: {
    popularity: ['total_clients'],
    columns: { broker_name: { reads: ['hq_city', 'hq_state'], label: (d) => qualified(d.broker_name, d.hq_city, d.hq_state) } },
  },
  geo: { state: 'hq_state', dma: 'hq_dma' },
  crm: { ein: null, domain: 'domain' },
  leadSource: (d) => (typeof d.source_record === 'string' ? d.source_record : 'Form 5500 Schedule A'),
  price: { basic: 250, advanced: 1000 },
  filters: [
    filter('filing_year', 'year_or_latest', [], { values: ['latest'] }),
    filter('lines_of_business', 'terms', 'lines_of_business', { values: LINES_OF_BUSINESS }),
    filter('long_tail', 'bool', 'long_tail'),
    filter('brokerage_class', 'terms', 'brokerage_class', { values: BROKERAGE_CLASSES }),
    filter('client_count_bands', 'terms', 'client_count_band', { values: labels(CLIENT_COUNT_BANDS) }),
  ],
  joins: [],
  fields: [
    f('id', 'keyword', 'Broker id', csv(), { light: true }),
    f('broker_name', 'name', 'Brokerage name', csv(true), { light: true, sortable: true, cf: 'string', search: 3, autocomplete: true }),
    f('website', 'keyword', 'Website', csv(), { light: true, cf: 'string', blank: true, format: 'url' }),
    f('domain', 'keyword', 'Normalized domain of the website (CRM matching)', domainOf('website'), { output: false }),
    f('broker_linkedin', 'keyword', 'LinkedIn URL', csv(), { blank: true, format: 'url' }),
    f('hq_city', 'keyword', 'Headquarters city', csv(), { cf: 'string', blank: true }),
    f('hq_state', 'keyword', 'Headquarters USPS state', csv(), { cf: 'exact', blank: true, format: 'usps_state' }),
    f('hq_dma', 'keyword', 'Headquarters DMA', csv(), { cf: 'string', blank: true }),
    f('phone_number', 'keyword', 'Main phone', csv(), { tier: 'advanced', cf: 'string', blank: true }),
    f('brokerage_class', 'keyword', 'national player, regional player or local broker', csv(), { cf: 'exact', blank: true, enum: BROKERAGE_CLASSES }),
    f('total_clients', 'integer', 'Plan sponsors served', csv(), { sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('total_offices', 'integer', 'Offices', csv(), { sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('total_commissions', 'long', 'Annual commissions on Schedule A, dollars', csv(), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('total_premiums', 'long', 'Annual premiums placed, dollars', csv(), { tier: 'advanced', cf: 'numeric', blank: true, min: 0 }),
    f('commission_growth', 'double', 'Commission growth over the prior year, percent', csv(), { cf: 'percent', blank: true, min: -100, max: 100000 }),
    f('client_count_band', 'keyword', 'Client-count band', derived((d) => bandOf(CLIENT_COUNT_BANDS, num(d, 'total_clients'))), { cf: 'exact', blank: true }),
    f('long_tail', 'boolean', 'A local (long-tail) broker', derived((d) => (d.brokerage_class ? d.brokerage_class === 'local broker' : null)), { output: false }),
    f('lines_of_business', 'keywords', 'welfare (Schedule A health and welfare contracts) and/or retirement (pension contracts)', csv(), { cf: 'exact', blank: true, enum: LINES_OF_BUSINESS }),
    f('broker_codes', 'keywords', 'How the filers described the broker (Schedule A Part I code), e.g. insurance agent or broker', csv(), { cf: 'string', blank: true }),
    f('signals', 'keywords', 'Signals on the broker', csv(), { blank: true, enum: SIGNAL_NAMES }),
    f('last_updated_at', 'date', 'When the upstream record last changed', csv(), { format: 'iso_date' }),
    f('source_record', 'keyword', 'Upstream record the row was built from (lead_source.source), e.g. form5500:F_5500:2023:<ACK_ID>', csv(), { output: false }),
  ],
});
