/**
 * The signal catalogue: every signal a row can carry, with its category. Prices per
 * category live in the pricing table (server side); the category is what sets them.
 */
export type SignalCategory = 'status' | 'change' | 'benchmarking' | 'predictive';

export interface SignalDef {
  readonly name: string;
  readonly category: SignalCategory;
  readonly description: string;
}

export const SIGNALS: readonly SignalDef[] = Object.freeze([
  { name: 'new_filer', category: 'status', description: 'First Form 5500 filing for this sponsor' },
  { name: 'late_filer', category: 'status', description: 'Filed after the plan-year deadline' },
  { name: 'plan_terminated', category: 'status', description: 'A plan of the sponsor filed its final return (the plan ended)' },
  { name: 'broker_change', category: 'change', description: 'Broker of record changed since the prior filing' },
  { name: 'carrier_change', category: 'change', description: 'A Schedule A carrier changed since the prior filing' },
  { name: 'funding_change', category: 'change', description: 'Moved between fully insured and self-funded' },
  { name: 'headcount_change', category: 'change', description: 'Participants changed by more than 20% year over year' },
  { name: 'high_cost_plan', category: 'benchmarking', description: 'Premium per participant in the top decile of its industry' },
  { name: 'below_peer_growth', category: 'benchmarking', description: 'Participant growth below the industry median' },
  { name: 'likely_to_switch', category: 'predictive', description: 'A broker or carrier switch is likely at the next renewal: in the renewal window, with a broker change, a carrier change or a high-cost plan (a rule over the filings, not a model)' },
  { name: 'renewal_window', category: 'predictive', description: 'Renewal within the next 120 days' },
]);

const byName = new Map(SIGNALS.map((s) => [s.name, s]));
export function findSignal(name: string): SignalDef | undefined {
  return byName.get(name);
}
export const SIGNAL_NAMES: readonly string[] = Object.freeze(SIGNALS.map((s) => s.name));
