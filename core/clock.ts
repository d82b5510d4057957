/**
 * A sort score for "newest first" lists kept in Redis sorted sets: the time in ms, plus a
 * sub-millisecond sequence so that records created in the same millisecond by one process keep
 * their creation order (equal scores would fall back to the members' lexical order).
 */
let seq = 0;
let lastMs = 0;

export function creationScore(now = Date.now()): number {
  seq = now === lastMs ? seq + 1 : 0;
  lastMs = now;
  return now + Math.min(seq, 999) / 1000;
}

/** The UTC day of a time (default: now) as YYYY-MM-DD: the one day every daily count, cap and file name uses. */
export const utcDay = (at: number | Date = Date.now()): string => new Date(at).toISOString().slice(0, 10);
