/** Broker offices: the local offices of brokerages, with their book of business. */
import { csv, defineEntity, domainOf, derived, f, joined, num } from './fields.ts';
import { CLIENT_COUNT_BANDS, COMMISSION_TIERS, bandOf } from './reference.ts';
import { SIGNAL_NAMES } from './signals.ts';

export const brokerOffices = defineEntity({
  name: 'broker-offices',
  label: 'broker office',
  naturalKey: ['broker_id', 'office_name', 'city', 'state'],
  defaultSort: 'office_name',
  defaultAutocomplete: 'office_name',
  geo: { state: 'state', dma: 'dma' },
  crm: { ein: null, domain: 'domain' },
  leadSource: () => 'Form 5500 Schedule A',
  joins: [{ name: 'broker', entity: 'brokers', key: 'broker_id' }],
  fields: [
    f('id', 'keyword', 'Office id', csv(), { light: true }),
    f('office_name', 'name', 'Office name', csv(true), { light: true, sortable: true, cf: 'string', search: 3, autocomplete: true }),
    f('broker_office_name', 'keyword', 'Alias of office_name', derived((d) => d.office_name ?? null), { cf: 'string' }),
    f('broker_id', 'keyword', 'Parent broker id', csv(true), { light: true }),
    f('broker_name', 'keyword', 'Parent broker name', joined('broker:broker_name'), { light: true, cf: 'string', blank: true }),
    f('broker_linkedin', 'keyword', "Parent broker's LinkedIn URL (for its contacts' company_linkedin)", joined('broker:broker_linkedin'), { output: false }),
    f('brokerage_class', 'keyword', 'national player, regional player or local broker', joined('broker:brokerage_class'), { cf: 'exact', blank: true }),
    f('website', 'keyword', 'Office or brokerage website', csv(), { cf: 'string', blank: true, format: 'url' }),
    f('domain', 'keyword', 'Normalized domain of the website (CRM matching)', domainOf('website'), { output: false }),
    f('city', 'keyword', 'City', csv(), { cf: 'string', blank: true }),
    f('state', 'keyword', 'USPS state code', csv(), { cf: 'exact', blank: true, format: 'usps_state' }),
    f('zip', 'keyword', 'ZIP code', csv(), { cf: 'exact', blank: true }),
    f('dma', 'keyword', 'Nielsen DMA', csv(), { cf: 'string', blank: true }),
    f('phone_number', 'keyword', 'Office phone', csv(), { tier: 'advanced', cf: 'string', blank: true }),
    f('client_count', 'integer', 'Plan sponsors served', csv(), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('total_commissions', 'long', 'Annual commissions on Schedule A, dollars', csv(), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('total_premiums', 'long', 'Annual premiums placed, dollars', csv(), { tier: 'advanced', sortable: true, cf: 'numeric', blank: true, min: 0 }),
    f('broker_commission_growth_pct', 'double', 'Commission growth over the prior year, percent', csv(), { cf: 'percent', blank: true, min: -100, max: 100000 }),
    f('carriers', 'keywords', 'Carriers the office places business with', csv(), { cf: 'string', blank: true }),
    f('employee_coverage', 'keywords', 'Employee bands of the clients served', csv(), { cf: 'string', blank: true }),
    f('industry_coverage', 'keywords', 'Industries of the clients served', csv(), { cf: 'string', blank: true }),
    f('client_count_band', 'keyword', 'Client-count band', derived((d) => bandOf(CLIENT_COUNT_BANDS, num(d, 'client_count'))), { cf: 'exact', blank: true }),
    f('commission_tier', 'keyword', 'Commission tier', derived((d) => bandOf(COMMISSION_TIERS, num(d, 'total_commissions'))), { cf: 'exact', blank: true }),
    f('long_tail', 'boolean', 'Office of a local (long-tail) broker', derived((d) => (d.brokerage_class ? d.brokerage_class === 'local broker' : null)), { output: false }),
    f('signals', 'keywords', 'Signals on the office', csv(), { blank: true, enum: SIGNAL_NAMES }),
    f('last_updated_at', 'date', 'When the upstream record last changed', csv(), { format: 'iso_date' }),
  ],
});
