/**
 * Benefit lines and carriers: which lines a sponsor buys and which carriers write them,
 * with regional Blue plans and HMOs only where they operate.
 */
import { BENEFIT_TYPES, CARRIERS } from '../../mappings/reference.ts';
import { type Rng, Weighted } from './prng.ts';

type Carrier = (typeof CARRIERS)[number];
type BenefitType = (typeof BENEFIT_TYPES)[number];

const NATIONAL_MEDICAL: readonly (readonly [Carrier, number])[] = [
  ['UnitedHealthcare', 22], ['Aetna', 12], ['Cigna', 12], ['Humana', 4], ['Oscar Health', 2],
];
/** Regional medical carriers: [carrier, weight, states]. */
const REGIONAL_MEDICAL: readonly (readonly [Carrier, number, readonly string[]])[] = [
  ['Anthem Blue Cross', 30, ['CA', 'CO', 'CT', 'GA', 'IN', 'KY', 'ME', 'MO', 'NV', 'NH', 'NY', 'OH', 'VA', 'WI']],
  ['Blue Cross Blue Shield of Texas', 35, ['TX']],
  ['Florida Blue', 35, ['FL']],
  ['Blue Shield of California', 15, ['CA']],
  ['Highmark', 30, ['PA', 'WV', 'DE']],
  ['Kaiser Permanente', 12, ['CA', 'CO', 'GA', 'HI', 'MD', 'VA', 'DC', 'OR', 'WA']],
  ['Harvard Pilgrim', 12, ['MA', 'NH', 'ME', 'CT']],
  ['Tufts Health Plan', 10, ['MA']],
];

const MEDICAL_BY_STATE = new Map<string, Weighted<Carrier>>();
function medicalPick(state: string): Weighted<Carrier> {
  let w = MEDICAL_BY_STATE.get(state);
  if (!w) {
    w = new Weighted<Carrier>([...NATIONAL_MEDICAL, ...REGIONAL_MEDICAL.filter((r) => r[2].includes(state)).map((r) => [r[0], r[1]] as const)]);
    MEDICAL_BY_STATE.set(state, w);
  }
  return w;
}

const LINE_CARRIERS: Partial<Record<BenefitType, Weighted<Carrier>>> = {
  Dental: new Weighted<Carrier>([['Delta Dental', 30], ['Guardian Life', 15], ['MetLife', 15], ['Ameritas', 8], ['Principal Financial Group', 8], ['Cigna', 8], ['Humana', 4], ['Sun Life', 4]]),
  Vision: new Weighted<Carrier>([['VSP Vision Care', 40], ['EyeMed', 30], ['Guardian Life', 8], ['MetLife', 8], ['Ameritas', 4]]),
  Life: new Weighted<Carrier>([['MetLife', 15], ['Guardian Life', 12], ['Principal Financial Group', 10], ['The Hartford', 10], ['Lincoln Financial Group', 10], ['Unum', 10], ['Sun Life', 8], ['Mutual of Omaha', 8], ['Standard Insurance Company', 6], ['Reliance Standard', 5], ['Voya Financial', 3]]),
  'Short-Term Disability': new Weighted<Carrier>([['Unum', 15], ['The Hartford', 12], ['Lincoln Financial Group', 10], ['MetLife', 10], ['Guardian Life', 10], ['Principal Financial Group', 8], ['Standard Insurance Company', 8], ['Sun Life', 6], ['Mutual of Omaha', 6], ['Reliance Standard', 5]]),
  'Long-Term Disability': new Weighted<Carrier>([['Unum', 15], ['The Hartford', 12], ['Lincoln Financial Group', 10], ['MetLife', 10], ['Guardian Life', 10], ['Principal Financial Group', 8], ['Standard Insurance Company', 8], ['Sun Life', 6], ['Mutual of Omaha', 6], ['Reliance Standard', 5]]),
  Accident: new Weighted<Carrier>([['Aflac', 30], ['Colonial Life', 20], ['Guardian Life', 10], ['MetLife', 10], ['Unum', 10], ['Voya Financial', 5]]),
  'Critical Illness': new Weighted<Carrier>([['Aflac', 30], ['Colonial Life', 20], ['Guardian Life', 10], ['MetLife', 10], ['Unum', 10], ['Voya Financial', 5]]),
  'Hospital Indemnity': new Weighted<Carrier>([['Aflac', 30], ['Colonial Life', 20], ['Guardian Life', 10], ['MetLife', 8], ['Voya Financial', 5]]),
  'Stop-Loss': new Weighted<Carrier>([['Sun Life', 20], ['Voya Financial', 15], ['Highmark', 10], ['Cigna', 10], ['UnitedHealthcare', 10], ['Aetna', 8], ['Standard Insurance Company', 4]]),
  EAP: new Weighted<Carrier>([['Unum', 10], ['Guardian Life', 10], ['MetLife', 8], ['Lincoln Financial Group', 8], ['The Hartford', 8], ['Cigna', 6]]),
};

/** Probability a sponsor buys each line (Medical nearly always; Stop-Loss only when self-funded). */
const LINE_SHARE: Record<BenefitType, number> = {
  Medical: 0.93, Dental: 0.62, Vision: 0.5, Life: 0.55, 'Short-Term Disability': 0.3, 'Long-Term Disability': 0.32,
  Accident: 0.15, 'Critical Illness': 0.12, 'Stop-Loss': 0, 'Prescription Drug': 0.22, EAP: 0.15, 'Hospital Indemnity': 0.08,
};

/** The lines of a sponsor, in catalogue order (never empty). */
export function benefitLines(rng: Rng, selfFunded: boolean, large: boolean): BenefitType[] {
  const out: BenefitType[] = [];
  for (const line of BENEFIT_TYPES) {
    const p = line === 'Stop-Loss' ? (selfFunded ? 0.85 : 0) : Math.min(0.98, LINE_SHARE[line] * (large && line !== 'Medical' ? 1.35 : 1));
    if (rng.chance(p)) out.push(line);
  }
  if (!out.length) out.push('Medical');
  return out;
}

/** The carriers writing a sponsor's lines (distinct, in order of first line). */
export function carriersFor(rng: Rng, lines: readonly BenefitType[], state: string): Carrier[] {
  const out: Carrier[] = [];
  let medical: Carrier | null = null;
  for (const line of lines) {
    let c: Carrier;
    if (line === 'Medical') c = medical = medicalPick(state).pick(rng);
    else if (line === 'Prescription Drug') c = medical ?? medicalPick(state).pick(rng);
    else c = (LINE_CARRIERS[line] ?? medicalPick(state)).pick(rng);
    if (!out.includes(c)) out.push(c);
  }
  return out;
}

/** A broker office's carrier appointments: several medical and ancillary carriers. */
export function officeCarriers(rng: Rng, state: string, n: number): Carrier[] {
  const out: Carrier[] = [];
  const lines: readonly BenefitType[] = ['Medical', 'Dental', 'Vision', 'Life', 'Long-Term Disability', 'Accident', 'Medical', 'Stop-Loss'];
  for (let i = 0; out.length < n && i < n * 4; i++) {
    const line = lines[i % lines.length];
    const c = line === 'Medical' ? medicalPick(state).pick(rng) : (LINE_CARRIERS[line] ?? medicalPick(state)).pick(rng);
    if (!out.includes(c)) out.push(c);
  }
  return out;
}
