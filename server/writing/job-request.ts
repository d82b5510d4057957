/**
 * POST /v1/writing-jobs, the parse step: the body's JSON Schema (also in the OpenAPI document)
 * and the rules a schema cannot say. Every problem comes back in one 400 before anything is
 * looked up, reserved or written.
 */
import { invalid, type ErrorDetail } from '../errors.ts';
import { validator } from '../validate.ts';
import { CHANNELS, LINKEDIN_TYPES, type Channel, type LinkedinType } from './context.ts';

/** Most characters of writing.instructions. */
export const INSTRUCTIONS_MAX = 4_000;

const str = (maxLength: number, description?: string) => ({ type: 'string', minLength: 1, maxLength, ...(description ? { description } : {}) });
const ITEM_ID = { type: 'string', minLength: 1, maxLength: 100 };
const selection = (what: string) => ({
  type: 'object',
  additionalProperties: false,
  required: ['selection'],
  description: `Which ${what} of the identity to use; cannot be combined with the matching direct id.`,
  properties: { selection: { type: 'string', enum: ['auto', 'specific', 'none'] }, selected_ids: { type: 'array', items: ITEM_ID, minItems: 1, maxItems: 20, uniqueItems: true } },
});
const ITEM_CHOICE = { ...ITEM_ID, description: 'An item id of the identity, `auto` or `none`.' };

export const SENDER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    full_name: str(200),
    title: str(200),
    company_name: str(200),
    signature: str(2000, 'Multiline sign-off, used as is.'),
    name: str(200, 'Deprecated alias of full_name.'),
    company: str(200, 'Deprecated alias of company_name.'),
  },
};

export const TARGET_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    full_name: str(200),
    first_name: str(100),
    last_name: str(100),
    title: str(200),
    company_name: str(300),
    industry: str(200),
    city: str(100),
    state: str(100),
    employee_count: { type: 'integer', minimum: 0, maximum: 10_000_000 },
    website: str(300),
    email: str(320),
    linkedin_url: str(500),
    notes: str(2000, 'Anything else the copy should know about the target.'),
  },
};

export const WRITING_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    play_source: { type: 'string', enum: ['template', 'personal'] },
    personal_play_id: { ...ITEM_ID, description: 'A saved play; needs play_source personal.' },
    value_prop_id: ITEM_CHOICE,
    case_study_id: ITEM_CHOICE,
    content_angle_id: ITEM_CHOICE,
    value_proposition_selection: selection('value propositions'),
    case_study_selection: selection('case studies'),
    content_angle_selection: selection('content angles'),
    cta_id: { ...ITEM_ID, description: 'A saved CTA.' },
    cta: {
      description: 'An inline CTA; a non-empty value wins over cta_id.',
      oneOf: [{ type: 'string', maxLength: 1000 }, { type: 'object', additionalProperties: false, properties: { name: { type: 'string', maxLength: 200 }, body: { type: 'string', maxLength: 1000 } } }],
    },
    subject_id: { ...ITEM_ID, description: 'A saved subject, returned unchanged.' },
    subject: { type: 'string', minLength: 1, maxLength: 300, description: 'An inline subject, returned unchanged (email).' },
    content_mode: { type: 'string', minLength: 1, maxLength: 50, description: 'Accepted and echoed in resolved_context; no values are defined yet.' },
    instructions: { type: 'string', maxLength: INSTRUCTIONS_MAX },
  },
};

export const START_JOB_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['source_mode', 'channel'],
  properties: {
    source_mode: { type: 'string', enum: ['saved', 'inline', 'hybrid'] },
    channel: { type: 'string', enum: [...CHANNELS] },
    linkedin_type: { type: 'string', enum: [...LINKEDIN_TYPES] },
    identity_id: { ...ITEM_ID, description: 'A saved identity; required for saved and hybrid.' },
    identity: { type: 'object', description: 'Identity data (camelCase members); inline, or overrides of the saved identity in hybrid mode.' },
    sender: SENDER_SCHEMA,
    target: TARGET_SCHEMA,
    writing: WRITING_SCHEMA,
    dry_run: { type: 'boolean' },
    include_ai_costs: { type: 'boolean', description: 'Internal tokens only.' },
    force_failure: { type: 'boolean', description: 'Internal tokens only: the job fails (its reservation released).' },
  },
};

type Obj = Record<string, unknown>;

export interface Selection {
  selection: 'auto' | 'specific' | 'none';
  selected_ids?: string[];
}

export interface StartJobRequest {
  source_mode: 'saved' | 'inline' | 'hybrid';
  channel: Channel;
  linkedin_type?: LinkedinType;
  identity_id?: string;
  identity?: Obj;
  sender?: { full_name?: string; title?: string; company_name?: string; signature?: string; name?: string; company?: string };
  target?: Obj;
  writing?: {
    play_source?: 'template' | 'personal';
    personal_play_id?: string;
    value_prop_id?: string;
    case_study_id?: string;
    content_angle_id?: string;
    value_proposition_selection?: Selection;
    case_study_selection?: Selection;
    content_angle_selection?: Selection;
    cta_id?: string;
    cta?: string | { name?: string; body?: string };
    subject_id?: string;
    subject?: string;
    content_mode?: string;
    instructions?: string;
  };
  dry_run?: boolean;
  include_ai_costs?: boolean;
  force_failure?: boolean;
}

const validate = validator<StartJobRequest>(START_JOB_SCHEMA);

/** The pairs of a direct item id and its selection object. */
export const ITEM_KINDS = [
  { id: 'value_prop_id', selection: 'value_proposition_selection', list: 'valueProps' },
  { id: 'case_study_id', selection: 'case_study_selection', list: 'caseStudies' },
  { id: 'content_angle_id', selection: 'content_angle_selection', list: 'contentAngles' },
] as const;

/** Checks the body: the schema, then the rules between members. Throws one 400 with every problem. */
export function parseStartJob(body: unknown): StartJobRequest {
  const req = validate(body);
  const problems: ErrorDetail[] = [];
  const mode = req.source_mode;
  if ((mode === 'saved' || mode === 'hybrid') && !req.identity_id) problems.push({ field: 'identity_id', issue: 'missing_required', expected: `an identity id (source_mode ${mode})` });
  if (mode === 'inline' && req.identity_id) problems.push({ field: 'identity_id', issue: 'conflicting_values', expected: 'no identity_id with source_mode inline (use hybrid to override a saved identity)' });
  if (mode === 'inline' && !req.identity) problems.push({ field: 'identity', issue: 'missing_required', expected: 'the identity object (source_mode inline)' });
  if (mode === 'saved' && req.identity) problems.push({ field: 'identity', issue: 'conflicting_values', expected: 'no inline identity with source_mode saved (use hybrid to override)' });
  if (req.channel === 'email' && req.linkedin_type) problems.push({ field: 'linkedin_type', issue: 'conflicting_values', expected: 'linkedin_type only with channel linkedin' });
  if (req.channel !== 'email' && req.writing?.subject !== undefined) problems.push({ field: 'writing.subject', issue: 'conflicting_values', expected: 'a subject only with channel email' });
  if (req.channel !== 'email' && req.writing?.subject_id !== undefined) problems.push({ field: 'writing.subject_id', issue: 'conflicting_values', expected: 'a subject only with channel email' });
  const s = req.sender;
  if (s) {
    if (!s.full_name && !s.name) problems.push({ field: 'sender.full_name', issue: 'missing_required', expected: 'the sender full name when sender is supplied' });
    if (s.full_name && s.name && s.full_name !== s.name) problems.push({ field: 'sender.name', issue: 'conflicting_values', expected: 'sender.name is a deprecated alias of sender.full_name' });
    if (s.company_name && s.company && s.company_name !== s.company) problems.push({ field: 'sender.company', issue: 'conflicting_values', expected: 'sender.company is a deprecated alias of sender.company_name' });
  }
  const w = req.writing ?? {};
  if (w.personal_play_id && w.play_source !== 'personal') problems.push({ field: 'writing.personal_play_id', issue: 'conflicting_values', expected: 'personal_play_id needs play_source personal' });
  if (w.play_source === 'personal' && !w.personal_play_id) problems.push({ field: 'writing.personal_play_id', issue: 'missing_required', expected: 'a saved play id (play_source personal)' });
  for (const k of ITEM_KINDS) {
    const sel = w[k.selection];
    if (sel && w[k.id] !== undefined) problems.push({ field: `writing.${k.selection}`, issue: 'conflicting_values', expected: `${k.selection} or ${k.id}, not both` });
    if (sel?.selection === 'specific' && !sel.selected_ids?.length) problems.push({ field: `writing.${k.selection}.selected_ids`, issue: 'missing_required', expected: 'the ids of selection specific' });
    if (sel && sel.selection !== 'specific' && sel.selected_ids) problems.push({ field: `writing.${k.selection}.selected_ids`, issue: 'conflicting_values', expected: 'selected_ids only with selection specific' });
  }
  if (problems.length) throw invalid(problems);
  return req;
}
