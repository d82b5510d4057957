/**
 * A writing job as the API shows it: the TypeScript view, its JSON Schema (the OpenAPI
 * document's, closed: a member the schema lacks fails the response checker) and `jobView`,
 * which keeps exactly the schema's members of a record.
 */
import { jobIdPattern, JOB_STATUSES, type JobStatus } from '../jobs/kind.ts';
import { CHANNELS, LINKEDIN_TYPES, type Channel, type LinkedinType, type ResolvedContext } from './context.ts';
import type { AiCosts, EmailOutput, LinkedinOutput } from './writer.ts';

/** Writing job ids: `wj_` and 32 hex digits. */
export const WRITING_JOB_ID_PREFIX = 'wj';
export const WRITING_JOB_ID_PATTERN = jobIdPattern(WRITING_JOB_ID_PREFIX);

export const WRITING_KINDS = ['email', 'linkedin_message', 'linkedin_connection_request'] as const;

export interface WritingEvent {
  progress: number;
  label: string;
  ts: number;
}

/** The job as the API shows it (WritingJob; no other members). */
export interface WritingJobView {
  id: string;
  kind: string | null;
  status: JobStatus;
  progress: number;
  label: string;
  events: WritingEvent[];
  eventCount: number;
  done: boolean;
  success: boolean | null;
  jobSuccess: boolean | null;
  error: string | { code: string; message: string } | null;
  created_at: string | null;
  updated_at: string | null;
  channel: Channel;
  linkedin_type: LinkedinType | null;
  output: ((EmailOutput | LinkedinOutput) & { resolved_context: ResolvedContext; ai_costs?: AiCosts }) | null;
  resolved_context: ResolvedContext | null;
  billing: { credits_reserved: number; credits_charged: number; credits_released: number; credits_refunded: 0 };
}

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const obj: Schema = { type: 'object' };
const nullable = (t: Schema): Schema => ({ oneOf: [t, { type: 'null' }] });
const event: Schema = { type: 'object', required: ['progress', 'label', 'ts'], properties: { progress: { type: 'integer', minimum: 0, maximum: 100 }, label: str, ts: { type: 'integer', description: 'Unix milliseconds.' } } };
const output: Schema = {
  oneOf: [
    { type: 'object', required: ['channel', 'subject', 'body', 'body_html', 'resolved_context'], properties: { channel: { const: 'email' }, subject: str, body: { type: 'string', description: 'Plain text, LF line ends.' }, body_html: str, resolved_context: obj, ai_costs: obj } },
    { type: 'object', required: ['channel', 'linkedin_type', 'content', 'resolved_context'], properties: { channel: { const: 'linkedin' }, linkedin_type: { type: 'string', enum: [...LINKEDIN_TYPES] }, content: { type: 'string', description: 'At most 300 characters for a connection request.' }, resolved_context: obj, ai_costs: obj } },
    { type: 'null' },
  ],
};

/** The schema of WritingJobView: one property per member. */
export const WRITING_JOB_VIEW_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'events', 'eventCount', 'billing'],
  properties: {
    id: { type: 'string', pattern: WRITING_JOB_ID_PATTERN },
    kind: nullable({ type: 'string', enum: [...WRITING_KINDS] }),
    status: { type: 'string', enum: [...JOB_STATUSES] },
    progress: { type: 'integer', minimum: 0, maximum: 100 },
    label: str,
    events: { type: 'array', items: event },
    eventCount: { type: 'integer', minimum: 0 },
    done: { type: 'boolean' },
    success: nullable({ type: 'boolean' }),
    jobSuccess: nullable({ type: 'boolean' }),
    error: { oneOf: [str, obj, { type: 'null' }] },
    created_at: nullable({ type: 'string', format: 'date-time' }),
    updated_at: nullable({ type: 'string', format: 'date-time' }),
    channel: { type: 'string', enum: [...CHANNELS] },
    linkedin_type: nullable({ type: 'string', enum: [...LINKEDIN_TYPES] }),
    output,
    resolved_context: nullable(obj),
    billing: { type: 'object', properties: { credits_reserved: { type: 'number' }, credits_charged: { type: 'number' }, credits_released: { type: 'number' }, credits_refunded: { const: 0, description: 'Always 0 (deprecated).' } } },
  } satisfies Record<keyof WritingJobView, Schema>,
};

const VIEW_MEMBERS = Object.keys(WRITING_JOB_VIEW_SCHEMA.properties) as (keyof WritingJobView)[];

/** The view of a record: the schema's members, nothing else. */
export const jobView = (r: WritingJobView): WritingJobView => Object.fromEntries(VIEW_MEMBERS.filter((m) => r[m] !== undefined).map((m) => [m, r[m]])) as unknown as WritingJobView;
