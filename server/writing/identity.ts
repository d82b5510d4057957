/**
 * The saved marketing identity: its JSON Schema (what GET /v1/identities/schema returns, the
 * server validates with, and the OpenAPI document shows), and what writing options make of it.
 *
 * Members are camelCase (unlike the rest of the API, as the spec says). The schema is strict
 * about types and names but lets a stored identity hold imperfect rows (a placeholder value
 * proposition, a case study without a result, a repeated id): those are kept as written and
 * left out of writing options and jobs, each reported in `warnings`.
 */
import type { Obj } from './types.ts';

/** A placeholder an identity template left in: empty, `TBD`, `lorem ipsum`, `[...]`, `{{...}}`, `<...>`, `xxx`, `N/A`. */
export const isPlaceholder = (s: unknown): boolean =>
  typeof s !== 'string' || !s.trim() || /^(tbd|tba|todo|n\/?a|none|null|x+|\.\.\.|-+|lorem ipsum.*|placeholder.*|example.*)$/i.test(s.trim()) || /^\[.*\]$|^\{\{.*\}\}$|^<.*>$/.test(s.trim());

const text = (maxLength: number, description?: string) => ({ type: 'string', maxLength, ...(description ? { description } : {}) });
const ITEM_ID = { type: 'string', minLength: 1, maxLength: 100, description: 'Unique within its list; referenced by writing jobs.' };
const items = (properties: Record<string, unknown>, description: string) => ({
  type: 'array',
  maxItems: 100,
  description,
  items: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: ITEM_ID, ...properties } },
});
const strings = (description: string) => ({ type: 'array', maxItems: 100, items: text(1000), description });

export const IDENTITY_SCHEMA = {
  title: 'Marketing identity',
  type: 'object',
  additionalProperties: false,
  required: ['companyName'],
  properties: {
    companyName: { type: 'string', minLength: 1, maxLength: 200, description: 'The company the copy speaks for.' },
    versionName: text(100, 'A label for this version of the identity ("Q4 enterprise").'),
    website: text(300),
    industry: text(200),
    valueProps: items({ feature: text(1000, 'What the company does for a customer.') }, 'Value propositions.'),
    caseStudies: items({ result: text(1000, 'The outcome, e.g. "cut renewal costs 14%".'), customer: text(200, 'The customer named (a quote needs one).'), quote: text(1000, 'A testimonial quote.'), title: text(200) }, 'Case studies.'),
    contentAngles: items({ headline: text(300), body: text(2000) }, 'Angles a message can take.'),
    brandVoice: {
      description: 'How the copy sounds: a description, or an object whose `avoid` terms never appear in delivered copy ("em dash" also forbids the em dash).',
      oneOf: [
        text(2000),
        { type: 'object', additionalProperties: false, properties: { description: text(2000), tone: text(200), avoid: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } } } },
      ],
    },
    proofPoints: strings('Facts that back the claims ("500 employers served").'),
    icp: {
      description: 'The ideal customer profile: a description, or its parts.',
      oneOf: [text(2000), { type: 'object', additionalProperties: false, properties: { description: text(2000), industries: strings('Industries.'), titles: strings('Buyer titles.'), companySizes: strings('Company sizes ("50-200 employees").'), regions: strings('Regions or states.') } }],
    },
    painPoints: strings('Problems the customer has.'),
  },
} as const;

/** Members of an identity that are arrays, at any depth (writing one of them needs If-Match). */
export function replacesArray(patch: unknown): boolean {
  if (Array.isArray(patch)) return true;
  if (patch && typeof patch === 'object') return Object.values(patch).some(replacesArray);
  return false;
}

/** RFC 7396 merge patch: objects merge, arrays and scalars replace, null removes. */
export function mergePatch(target: Obj, patch: Obj): Obj {
  const out: Obj = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) out[k] = mergePatch(out[k] as Obj, v as Obj);
    else out[k] = v;
  }
  return out;
}

export interface OptionWarning {
  code: 'IDENTITY_ID_REQUIRED' | 'ITEM_EXCLUDED';
  message: string;
  fields?: string[];
  field?: string;
  id?: string | null;
  reason?: 'placeholder' | 'incomplete' | 'duplicate_id' | 'quote_without_customer';
}

const LISTS = [
  { member: 'valueProps', option: 'value_propositions', text: 'feature' },
  { member: 'caseStudies', option: 'case_studies', text: 'result' },
  { member: 'contentAngles', option: 'content_angles', text: 'headline' },
] as const;

/** The identity-derived choices of writing options, and a warning for each row left out. */
export function identityChoices(identity: Obj): { choices: Record<string, unknown[]>; warnings: OptionWarning[] } {
  const warnings: OptionWarning[] = [];
  const choices: Record<string, unknown[]> = {};
  for (const l of LISTS) {
    const seen = new Set<string>();
    const out: Obj[] = [];
    const list = Array.isArray(identity[l.member]) ? (identity[l.member] as Obj[]) : [];
    for (const item of list) {
      const id = typeof item.id === 'string' ? item.id : null;
      const value = item[l.text];
      const exclude = (reason: OptionWarning['reason'], message: string) => warnings.push({ code: 'ITEM_EXCLUDED', field: l.member, id, reason, message });
      if (!id || isPlaceholder(id)) exclude('placeholder', `A ${l.member} row without an id is left out`);
      else if (seen.has(id)) exclude('duplicate_id', `${l.member} id "${id}" appears more than once; the first is used`);
      else if (value === undefined || value === null || value === '') exclude('incomplete', `${l.member} "${id}" has no ${l.text}`);
      else if (isPlaceholder(value)) exclude('placeholder', `${l.member} "${id}" is a placeholder ("${String(value)}")`);
      else {
        seen.add(id);
        const row: Obj = { ...item };
        if (l.member === 'caseStudies' && row.quote && (typeof row.customer !== 'string' || isPlaceholder(row.customer))) {
          delete row.quote;
          warnings.push({ code: 'ITEM_EXCLUDED', field: 'caseStudies.quote', id, reason: 'quote_without_customer', message: `The quote of case study "${id}" names no customer; it is left out` });
        }
        out.push(row);
      }
    }
    choices[l.option] = out;
  }
  const strs = (v: unknown, field: string): string[] => {
    const list = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
    const out: string[] = [];
    for (const s of list) {
      if (typeof s === 'string' && !isPlaceholder(s) && !out.includes(s)) out.push(s);
      else warnings.push({ code: 'ITEM_EXCLUDED', field, id: null, reason: typeof s === 'string' && out.includes(s) ? 'duplicate_id' : 'placeholder', message: `A ${field} entry is left out (${typeof s === 'string' && out.includes(s) ? 'repeated' : 'placeholder'})` });
    }
    return out;
  };
  choices.pain_points = strs(identity.painPoints, 'painPoints');
  const icp = identity.icp;
  choices.icp = typeof icp === 'string' ? strs(icp, 'icp') : icp && typeof icp === 'object' ? [icp] : [];
  return { choices, warnings };
}

/** The identity-derived option lists, named as GET /v1/writing/options names them. */
export const IDENTITY_OPTION_FIELDS = ['icp', 'pain_points', 'case_studies', 'value_propositions', 'content_angles'] as const;
