/** Signals carried by a minority of generated rows (names from the signal catalogue). */
import { SIGNAL_NAMES } from '../../mappings/signals.ts';
import type { Rng } from './prng.ts';

const KNOWN = new Set(SIGNAL_NAMES);

/** Checks at load time that every signal the generator uses is in the catalogue. */
export function signalList<const T extends readonly string[]>(names: T): T {
  for (const n of names) if (!KNOWN.has(n)) throw new Error(`generator uses unknown signal "${n}"`);
  return names;
}

/** With probability `share`, one or two distinct signals from `candidates`; else none. */
export function pickSignals(rng: Rng, share: number, candidates: readonly string[]): string[] {
  if (!candidates.length || !rng.chance(share)) return [];
  const first = rng.pick(candidates);
  if (candidates.length < 2 || rng.chance(0.7)) return [first];
  let second = rng.pick(candidates);
  if (second === first) second = candidates[(candidates.indexOf(first) + 1) % candidates.length];
  return [first, second];
}
