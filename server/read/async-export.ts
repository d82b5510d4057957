/**
 * Async exports (an extension beyond the spec): the job record, its public view and who may read
 * it. The job kind (body, price, run, settlement), the organization's list and the cleanup of
 * expired files are server/jobs/kinds/export.ts, on the job layer (server/jobs/). The record lives in
 * Redis (any server process of the namespace answers status and download); files live in
 * config.exportDir (a shared directory in production).
 */
import type { Config } from '../../core/config.ts';
import type { KeyRecord } from '../services/keys.ts';
import { keyTier } from '../services/tiers.ts';
import type { JobRecord } from '../jobs/kind.ts';
import { jobIdPattern, JOB_STATUSES } from '../jobs/kind.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import type { Tier } from '../../mappings/types.ts';
import { findEntity } from '../../mappings/index.ts';
import type { Charge } from './charge.ts';
import type { SearchBody } from './query.ts';
import type { RawQuery } from './request.ts';

/** The file name of a job: the organization (base64url, no dots) and the id. */
export const exportFileName = (org: string, id: string, gzip: boolean): string => `${Buffer.from(org).toString('base64url')}.${id}.csv${gzip ? '.gz' : ''}`;

/** Export ids: `exp_` and 32 hex digits (the route and the document match them with this). */
export const EXPORT_ID_PREFIX = 'exp';
export const EXPORT_ID_PATTERN = jobIdPattern(EXPORT_ID_PREFIX);

/** What Redis holds of one job (and GET /v1/exports/{id} shows, without `file` and `charge`). */
export interface ExportJob extends JobRecord {
  org: string;
  /** The user of the key that started it: only that user's keys and tokens read it (not shown). */
  user: string;
  resource: string;
  /** The tier a key needs to read the rows (tierNeeded of the request that started it). */
  tier: Tier;
  /** Sandbox rows (started by a test key): only test keys read the job; live rows only live keys. */
  sandbox: boolean;
  gzip: boolean;
  rows_reserved: number;
  rows_written: number;
  percent: number;
  /** Runs started (a run again after a failed attempt or a dead worker starts from the first row). */
  attempts: number;
  credits_reserved: number;
  credits_charged: number | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string | null;
  error: string | null;
  /** File name inside the export directory. */
  file: string;
  charge: Charge;
}

/**
 * What the queue carries: everything a worker in any process needs to run the export as it was
 * paid for: the key as it was (without its secret hash), the list parameters (parsed again, the
 * parse is pure), and the query and row count the reservation was made for.
 */
export interface ExportPayload {
  id: string;
  org: string;
  key: Omit<KeyRecord, 'secret_hash'>;
  /** Whose daily rows the reservation took (server/services/person.ts). */
  person: string;
  dataNamespace: string;
  sandbox: boolean;
  resource: string;
  q: RawQuery;
  maxRows: number;
  index: string;
  body: SearchBody;
  rows: number;
  charge: Charge;
}

const nullable = (type: string, more: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...more });

/**
 * The public view of a job (GET /v1/exports/{id}, the list, the 202 of POST): its schema is the
 * document's and `jobView` shows exactly its members, so the two cannot drift apart.
 */
export const EXPORT_JOB_VIEW_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'resource', 'tier', 'sandbox', 'gzip', 'status', 'rows_reserved', 'rows_written', 'percent', 'attempts', 'credits_reserved', 'credits_charged', 'created_at', 'completed_at', 'expires_at', 'error'],
  properties: {
    id: { type: 'string', pattern: EXPORT_ID_PATTERN },
    resource: { type: 'string', enum: [...ENTITY_NAMES] },
    tier: { type: 'string', enum: ['basic', 'advanced'], description: 'The tier a key needs to read the job: advanced when its rows carry an advanced field or an advanced sort or filter chose them.' },
    sandbox: { type: 'boolean', description: 'Started by a test key: only test keys read it (live jobs only live keys).' },
    gzip: { type: 'boolean' },
    status: { type: 'string', enum: [...JOB_STATUSES] },
    rows_reserved: { type: 'integer' },
    rows_written: { type: 'integer' },
    percent: { type: 'number' },
    attempts: { type: 'integer', description: 'Runs started (a run after a failure or a dead worker starts from the first row).' },
    credits_reserved: { type: 'number' },
    credits_charged: nullable('number', { description: 'Null until the job settles.' }),
    created_at: { type: 'string', format: 'date-time' },
    completed_at: nullable('string', { format: 'date-time' }),
    expires_at: nullable('string', { format: 'date-time', description: 'When the file goes (completed jobs).' }),
    error: nullable('string'),
  },
} as const;

/** A job as the API shows it. */
export type ExportJobView = Pick<ExportJob, keyof typeof EXPORT_JOB_VIEW_SCHEMA.properties>;

const VIEW_MEMBERS = Object.keys(EXPORT_JOB_VIEW_SCHEMA.properties) as (keyof ExportJobView)[];

/** The public view of a job: the members of EXPORT_JOB_VIEW_SCHEMA, nothing else. */
export function jobView(j: ExportJob): ExportJobView {
  return Object.fromEntries(VIEW_MEMBERS.map((m) => [m, j[m]])) as ExportJobView;
}

/** How long a job record is kept: its file's lifetime and a day. */
export const recordTtlS = (config: Config): number => config.exportTtlH * 3600 + 86_400;

const TIER_RANK: Record<Tier, number> = { basic: 0, advanced: 1 };

/**
 * Whether `key` may read `job`: the job is its user's (the key that started it, that key's root
 * and child keys, and the user's tokens: they all carry the user), and `key` could read its rows:
 * it holds `read:<resource>`, is at least the job's tier for the resource, and is on the job's
 * side (test keys sandbox jobs, live keys live ones). Status, list and download all ask this; a
 * job it refuses is answered as one that does not exist.
 */
export function canReadJob(key: KeyRecord, job: ExportJob): boolean {
  const def = findEntity(job.resource);
  if (!def || key.org !== job.org || !key.scopes.includes(`read:${def.name}`)) return false;
  if (job.user !== key.user) return false;
  return TIER_RANK[keyTier(key, def)] >= TIER_RANK[job.tier] && (key.key_type === 'test') === job.sandbox;
}
