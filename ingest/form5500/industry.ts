/**
 * A filing's business code (line 2d: a 6-digit NAICS code, as the IRS lists them) → the
 * project's industry. The catalogue is NAICS 2017 (mappings/industries.ts): industry groups of
 * 4 digits. Codes of NAICS 2022's new groups map to the 2017 group they came from; IRS-style
 * codes that name only a subsector (`813000`) map to the subsector itself (path sector,
 * subsector), never to a guessed group.
 */
import { findIndustry } from '../../mappings/industries.ts';

/** NAICS 2022 industry groups that did not exist in 2017 → the 2017 group that held them (Census concordance). */
const NAICS_2022: Readonly<Record<string, string>> = {
  // Retail trade was regrouped by product (nonstore retailers folded in).
  4449: '4441', 4491: '4421', 4492: '4431', 4551: '4522', 4552: '4523', 4561: '4461', 4571: '4471', 4572: '4543',
  4581: '4481', 4582: '4482', 4583: '4483', 4591: '4511', 4592: '4512', 4593: '4531', 4594: '4532', 4595: '4533', 4599: '4539',
  // Information: publishing and broadcasting renumbered.
  5131: '5111', 5132: '5112', 5161: '5151', 5162: '5152', 5192: '5191',
};

/** The industry label of a business code; null when neither the group nor the subsector is known. */
export function industryOf(businessCode: string): string | null {
  const code = businessCode.replace(/\D/g, '');
  if (code.length < 3) return null;
  const group = code.slice(0, 4);
  const found = findIndustry(NAICS_2022[group] ?? group) ?? findIndustry(code.slice(0, 3));
  return found?.label ?? null;
}
