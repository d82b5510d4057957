/**
 * Compare-and-set, one way for every record written on what was read (keys, writing records,
 * feedback, job records): a round reads the record, decides, and writes only if the record is
 * still what it read. A round answers a value (done: the write happened, or there was nothing to
 * write) or RETRY (another writer came first: read again). After `attempts` lost rounds the loop
 * stops: by default with 409 CONFLICT `<field>`/`concurrent_change` (the caller retries later),
 * or with what `exhausted` answers. No loop here is unbounded: a record that keeps changing under
 * a writer never spins it forever.
 */
import { ApiError } from './errors.ts';

/** A round lost to a concurrent writer: read again. */
export const RETRY: unique symbol = Symbol('cas retry');

/** Rounds a loop may lose before it stops. */
export const CAS_ATTEMPTS = 20;

export interface CasOptions<T> {
  /** The field the 409 names (`key_id`, `id`). */
  field: string;
  /** What kept changing, for the message ("The key", "The record"). */
  what: string;
  attempts?: number;
  /** Instead of the 409: what the loop answers when every round was lost. */
  exhausted?: () => T;
}

/** Runs `round` until it answers a value, at most `attempts` times (see the module comment). */
export async function compareAndSet<T>(opts: CasOptions<T>, round: (attempt: number) => Promise<T | typeof RETRY>): Promise<T> {
  const attempts = opts.attempts ?? CAS_ATTEMPTS;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const out = await round(attempt);
    if (out !== RETRY) return out;
  }
  if (opts.exhausted) return opts.exhausted();
  throw new ApiError('CONFLICT', `${opts.what} kept changing under this call (${attempts} tries); retry`, [{ field: opts.field, issue: 'concurrent_change' }]);
}
