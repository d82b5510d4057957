/**
 * Prices, in integer milli-credits (0.1 and 0.5 are not exact in binary floating point): the
 * per-row price of each entity by tier is declared in its definition (`price`); here is the
 * per-row surcharge of each signal category requested with `signals=`, and the arithmetic.
 */
import type { EntityDef, Tier } from '../mappings/types.ts';
import { findSignal, type SignalCategory } from '../mappings/signals.ts';

export const SIGNAL_SURCHARGE_MILLI: Readonly<Record<SignalCategory, number>> = Object.freeze({
  status: 50,
  change: 100,
  benchmarking: 100,
  predictive: 200,
});

export interface RowPrice {
  base: number;
  signals: number;
}

/** Per-row price of a read: base at the response tier plus the surcharge of each requested signal. */
export function rowPrice(def: Pick<EntityDef, 'price'>, tier: Tier, signals: readonly string[] = []): RowPrice {
  let surcharge = 0;
  for (const s of signals) {
    const def = findSignal(s);
    if (def) surcharge += SIGNAL_SURCHARGE_MILLI[def.category];
  }
  return { base: def.price[tier], signals: surcharge };
}

/** Milli-credits to the credits number shown in responses (exact to 3 decimals). */
export const toCredits = (milli: number) => milli / 1000;

/** Credits given on the command line or in a body, to milli-credits; null when not a multiple of 0.001. */
export function toMilli(credits: number): number | null {
  const m = Math.round(credits * 1000);
  return Number.isSafeInteger(m) && Math.abs(m / 1000 - credits) < 1e-9 ? m : null;
}
