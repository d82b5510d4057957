/**
 * Examples of the OpenAPI document, made from the schemas themselves (never a hand-kept copy
 * that could drift): a value for each schema, taken from its `const`, `enum`, `default` or
 * bounds, from a table of realistic values by member name (company_name, state, email_address
 * ...) when that value fits the schema, else from its type and format. A test validates every
 * example against its schema.
 */
import type { Schema } from './params.ts';

/** Realistic values by member name; used only when they satisfy the member's schema. */
const BY_NAME: Record<string, unknown> = {
  id: 'cmp_8f3a1c2e', company_name: 'Contoso Manufacturing Inc.', company_id: 'cmp_8f3a1c2e', office_name: 'Marsh McLennan Agency - Dayton', broker_office_name: 'Marsh McLennan Agency - Dayton',
  broker_name: 'Marsh McLennan Agency', broker_id: 'brk_21c9', full_name: 'Dana Whitfield', first_name: 'Dana', last_name: 'Whitfield', title: 'VP People', job_description: 'Leads benefits and HR operations',
  seniority: 'VP', job_function: 'Human Resources', email_address: 'dana.whitfield@contoso.example', email_status: 'verified', phone_number: '+1 937 555 0142',
  city: 'Dayton', state: 'OH', zip: '45402', dma: 'Dayton', hq_city: 'Dayton', hq_state: 'OH', hq_dma: 'Dayton', person_city: 'Dayton', person_state: 'OH', person_dma: 'Dayton',
  company_city: 'Dayton', company_state: 'OH', broker_office_city: 'Dayton', broker_office_state: 'OH', website: 'contoso.example', domain: 'contoso.example', company_website: 'contoso.example',
  ein: '311234567', company_ein: '311234567', naics_code: '332710', company_industry: 'Machine Shops', plan_name: 'Contoso Manufacturing Health Plan', form_type: '5500',
  total_number_of_employees: 420, participants: 388, filing_year: 2024, renewal_month: 'January', funding_status: 'Fully insured', label: 'Contoso Manufacturing Inc. (Dayton, OH)',
  value: 'Contoso Manufacturing Inc.', resource: 'companies', tag: 'q3-outreach', name: 'Q3 outreach', organization: 'org-northwind', user: 'u1',
  request_id: 'req_0123456789abcdef', message: 'The request is invalid', field: 'page_size', issue: 'out_of_range', expected: '1 to 500',
  subject: 'Cut renewal costs for Contoso Manufacturing', body: 'Hi Dana,\n\nA short idea for Contoso Manufacturing.\n\nBest,\nSam Reyes', body_html: '<p>Hi Dana,</p>\n<p>A short idea for Contoso Manufacturing.</p>\n<p>Best,<br>Sam Reyes</p>',
  content: 'Hi Dana, I help manufacturing teams like Contoso cut renewal costs. Would be great to connect. Sam', text: 'Your renewal, benchmarked', companyName: 'Northwind Benefits', versionName: 'Q4',
  dba_name: 'Contoso', admin_email: 'benefits@contoso.example', company_linkedin: 'https://www.linkedin.com/company/contoso-manufacturing',
  broker_linkedin: 'https://www.linkedin.com/company/marsh-mclennan-agency', person_linkedin_url: 'https://www.linkedin.com/in/dana-whitfield',
  total_premiums: 1_850_000, broker_commissions: 74_000, total_commissions: 2_350_000, plan_assets_401k: 12_400_000, total_clients: 140, client_count: 140, total_offices: 12,
  participant_growth: 3.2, commission_growth: 6.5, broker_commission_growth_pct: 6.5,
  employee_band: '201-500', premium_tier: '1M-5M', asset_tier_401k: '5M-25M', relationship_density: '2-3', client_count_band: '51-200', commission_tier: '2M-10M',
  brokerage_class: 'national player', funding_by_benefit: 'Medical: Fully Insured', carriers: 'Anthem Blue Cross', employee_coverage: '201-500', industry_coverage: 'Machine Shops',
  broker_office_id: 'bof_5d21a0', broker_office_ids: 'bof_5d21a0', primary_broker_office_id: 'bof_5d21a0', primary_broker_office: 'Marsh McLennan Agency - Dayton',
  primary_broker: 'Marsh McLennan Agency', brokers: 'Marsh McLennan Agency', broker_codes: 'insurance agent or broker', last_updated_at: '2026-07-31',
  source_filings: 'form5500:F_5500:2024:20250612093512NAL0012345678001:F_5500_2024_Latest.csv', signals: 'broker_change', tags: 'q3-outreach', retrieved_at: '2026-11-20T06:00:00.000Z',
  day: '2026-11-23', from: '2026-10-25', to: '2026-11-23', channel: 'email', operation: 'generate', model: 'deterministic', provider: 'bintel', secret_prefix: 'bk_live_8Hq2',
};

const FORMATS: Record<string, string> = { 'date-time': '2026-11-23T14:05:00.000Z', date: '2026-11-23', email: 'dana.whitfield@contoso.example', uri: 'https://contoso.example', uuid: '3f1c9e0a-5b7d-4e2a-9c1f-0a6b8d2e4f10' };

type Refs = Record<string, Schema>;

/** A string for `^prefix_[0-9a-f]{n}$`-style patterns, the only patterns ids use here. */
function fromPattern(pattern: string): string | undefined {
  const m = /^\^([A-Za-z]+_)\[0-9a-f\]\{(\d+)\}\$$/.exec(pattern);
  if (m) return m[1] + '0123456789abcdef'.repeat(4).slice(0, Number(m[2]));
  if (pattern.startsWith('^[A-Za-z0-9]')) return 'cmp_8f3a1c2e';
  return undefined;
}

function fits(value: unknown, s: Schema): boolean {
  if (s.enum && !(s.enum as unknown[]).includes(value)) return false;
  const types = ([] as unknown[]).concat(s.type ?? []);
  if (types.length) {
    const ok = types.some((t) => (t === 'integer' ? Number.isInteger(value) : t === 'array' ? Array.isArray(value) : t === 'null' ? value === null : typeof value === t));
    if (!ok) return false;
  }
  if (typeof value === 'string') {
    if (s.pattern && !new RegExp(s.pattern as string).test(value)) return false;
    if (typeof s.maxLength === 'number' && [...value].length > s.maxLength) return false;
    if (s.format && s.format !== 'email' && FORMATS[s.format as string] && value !== FORMATS[s.format as string]) return false;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return false;
    if (typeof s.maximum === 'number' && value > s.maximum) return false;
  }
  return true;
}

/** An example value of `schema` (`name`: the member it is the value of). */
export function exampleOf(schema: Schema | undefined, refs: Refs, name?: string, depth = 0): unknown {
  if (!schema || depth > 12) return undefined;
  if (typeof schema.$ref === 'string') return exampleOf(refs[(schema.$ref as string).split('/').pop()!], refs, name, depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => exampleOf(part, refs, name, depth + 1)));
  if ('const' in schema) return schema.const;
  if ('example' in schema) return schema.example;
  const alt = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alt) return exampleOf(alt.find((a) => a.type !== 'null') ?? alt[0], refs, name, depth + 1);
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[])[0];
  if ('default' in schema) return schema.default;
  if (name && name in BY_NAME && fits(BY_NAME[name], schema)) return BY_NAME[name];
  const type = ([] as string[]).concat((schema.type as string | string[] | undefined) ?? (schema.properties ? 'object' : 'string')).find((t) => t !== 'null');
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleOf(v, refs, k, depth + 1)]).filter(([, v]) => v !== undefined));
    }
    case 'array': {
      const item = exampleOf(schema.items as Schema | undefined, refs, name, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, Math.min(1, (schema.maximum as number) ?? 1)) : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    default: {
      if (schema.format && FORMATS[schema.format as string]) return FORMATS[schema.format as string];
      if (schema.pattern) return fromPattern(schema.pattern as string) ?? 'string';
      const s = name ? name.replace(/_/g, ' ') : 'text';
      return typeof schema.maxLength === 'number' ? s.slice(0, schema.maxLength) : s;
    }
  }
}

/** A realistic detail of each error status (the envelope's `details[]`). */
export const ERROR_DETAIL_EXAMPLES: Record<number, { field: string; issue: string; expected?: unknown }> = {
  400: { field: 'page_size', issue: 'out_of_range', expected: '1 to 500' },
  401: { field: 'authorization', issue: 'invalid_credentials' },
  402: { field: 'credits', issue: 'insufficient_credits', expected: 25 },
  403: { field: 'authorization', issue: 'missing_scope' },
  404: { field: 'id', issue: 'not_found' },
  405: { field: 'method', issue: 'not_allowed', expected: ['GET'] },
  409: { field: 'id', issue: 'invalid_state', expected: 'completed' },
  410: { field: 'id', issue: 'invalid_state', expected: 'a file is kept 24 h' },
  412: { field: 'if-match', issue: 'precondition_failed', expected: 'the current ETag (GET the record)' },
  413: { field: 'body', issue: 'too_large' },
  415: { field: 'content-type', issue: 'unsupported_media_type' },
  428: { field: 'if-match', issue: 'precondition_required', expected: 'the ETag of GET /v1/identities/{id}' },
  429: { field: 'authorization', issue: 'rate_limited' },
  431: { field: 'request', issue: 'too_long' },
  500: { field: 'request', issue: 'rejected' },
  503: { field: 'elasticsearch', issue: 'unreachable' },
};
