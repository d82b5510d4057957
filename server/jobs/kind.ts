/**
 * What a kind of paid background job declares; the job layer (this folder) does the rest once:
 *
 *   accept (accept.ts): parse → claim the Idempotency-Key, reserve the credits (with a ledger
 *     entry) and save the record in one script → enqueue; undo exactly that on any failure;
 *   record (store.ts): every state change a compare-and-set on the status and version read;
 *   run (queue.ts): BullMQ leases, retries and stalled-job recovery;
 *   settle / release (settle.ts): exactly once, by the reservation's settlement flag;
 *   sweep (sweeper.ts): reservations with no live job, released once.
 *
 * Async exports (server/read/async-export.ts) and writing jobs (server/jobs/kinds/writing.ts) are the
 * two kinds.
 */
import type { Config } from '../../core/config.ts';
import type { RedisKeys } from '../../core/names.ts';
import type { Services } from '../context.ts';
import type { AuthState } from '../access.ts';
import type { JobKind } from './queue.ts';
import type { StatsIncrement } from '../services/usage.ts';

/** The id pattern of a job kind (accept.ts makes `<prefix>_` and a UUID's 32 hex digits): `^exp_[0-9a-f]{32}$`. */
export const jobIdPattern = (prefix: string): string => `^${prefix}_[0-9a-f]{32}$`;

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The states a job may move to from each state (the spec's States and transitions, with retries). */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'failed'],
  running: ['running', 'queued', 'completed', 'failed'],
  completed: [],
  failed: [],
};

export const isFinished = (s: JobStatus): boolean => TRANSITIONS[s].length === 0;

/** Credits held for a job until it settles: what the ledger holds, and the record too. */
export interface Reservation {
  id: string;
  kind: string;
  org: string;
  key_id: string;
  /** Whose daily rows it took (server/services/person.ts). */
  person: string;
  milli: number;
  rows: number;
  /** The UTC day of the debit (a give-back returns budget spend and daily rows to it). */
  day: string;
  /** Epoch ms of the reservation. */
  at: number;
}

/** What every job record carries besides the kind's own fields (none of it is shown to callers). */
export interface JobRecord {
  id: string;
  status: JobStatus;
  /** Bumped by every save; a save names the version it read (a stale copy is refused). */
  version: number;
  reservation: Reservation;
}

/** What a kind's `plan` gives the layer for one accepted request. */
export interface Plan<P, R extends JobRecord> {
  /** Debited at accept: milli-credits, rows for usage, rows toward the daily cap (0: none) and that cap (-1: none). */
  reserve: { milli: number; rows: number; dailyRows: number; dailyCap: number };
  /** The record as saved at accept (status queued; `version` and `reservation` are set by the layer). */
  record: Omit<R, 'version' | 'reservation'>;
  /** What the queue carries to a worker. */
  payload: P;
  /** Sorted sets the job is listed in (the organization's slot), by creation. */
  indexes: string[];
  /** Usage statistics counted at accept: a hash and its increments (server/services/usage.ts). */
  stats?: StatsIncrement;
  /** Members of the 202's meta besides credits_reserved and credits_charged. */
  meta?: Record<string, unknown>;
}

/** A kind of paid job (see the module comment). */
export interface PaidJobKind<B, P, R extends JobRecord> extends JobKind<P> {
  /** Job ids: `<prefix>_<32 hex>`. */
  readonly idPrefix: string;
  /** What the 402 says the job is ("A 2,000-row export", "An email job"). */
  describe(body: B): string;
  /** Validates the body with no paid work: every problem a 4xx. */
  parse(services: Services, auth: AuthState, raw: unknown): Promise<B>;
  /** Prices and describes the job once the body is known good (may read data: exact counts). */
  plan(services: Services, auth: AuthState, body: B, id: string): Promise<Plan<P, R>>;
  /** The record's Redis key and how long it is kept. */
  recordKey(rk: RedisKeys, org: string, id: string): string;
  recordTtlS(config: Config): number;
  /** The settlement flag of a job's reservation (CreditService.settleOnce). */
  settledFlag(rk: RedisKeys, org: string, id: string): string;
  /** The outcome a full release records (what the kind's settlement reads back). */
  readonly releasedOutcome: string;
  /** Queued and running jobs of an organization at once (null: no cap). */
  activeCap(config: Config): number | null;
  /**
   * Jobs of an organization kept at once, whatever their status (absent or null: no cap): the
   * plan's first index, less the ids older than a record lives, counts them.
   */
  retainedCap?(config: Config): number | null;
  /** The sorted set listing the record by its status (writing jobs), or null. */
  statusIndex(rk: RedisKeys, r: R, status: JobStatus): string | null;
  /** Score of the record in its indexes (creation order). */
  score(r: R): number;
  /** The public view. */
  view(r: R): unknown;
  /** The record once its reservation was released without a run (sweeper, failed enqueue). */
  releasedRecord(r: R, reason: string): R;
  /** After every save (writing jobs publish the event for long polls). */
  afterSave?(services: Services, r: R): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPaidJobKind = PaidJobKind<any, any, any>;
