/**
 * Synthetic data generator: seeded, streaming CSVs for brokers, broker offices, companies
 * and personnel, with the columns of the entity definitions (csvFields), referentially
 * consistent. Every row is a pure function of (seed, entity, index), so output is
 * byte-identical per seed and memory stays flat whatever the row counts; the only state
 * is the office layout (a few typed arrays per broker and office).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ENTITY_NAMES, csvFields, entity } from '../../mappings/index.ts';
import type { EntityName } from '../../mappings/types.ts';
import { brokerRow } from './brokers.ts';
import { companyRow } from './companies.ts';
import { createContext, type Counts, type Ctx } from './context.ts';
import type { Row } from './format.ts';
import { officeRow } from './offices.ts';
import { personRow } from './personnel.ts';
import type { OrgName } from './orgnames.ts';
import { checkColumns, writeCsv } from './writer.ts';

export interface GenerateOptions {
  /** Output directory (created when missing). */
  out: string;
  companies: number;
  personnel: number;
  brokerOffices: number;
  brokers: number;
  seed: number;
  /** Names of the first companies (the README tour's examples, demo.ts TOUR_COMPANIES); the rest of each row is generated. */
  named?: readonly OrgName[];
  /** Rows written so far for an entity: every 100,000 rows and once when the file is complete. */
  onProgress?: (entity: string, rows: number) => void;
}

export interface GenerateResult {
  files: Record<EntityName, string>;
  rows: Record<EntityName, number>;
  /** File sizes in bytes. */
  bytes: Record<EntityName, number>;
}

/** File name of each entity's CSV, in load order (parents first). */
export const GENERATED_FILES: Readonly<Record<EntityName, string>> = Object.freeze({
  brokers: 'brokers.csv',
  'broker-offices': 'broker-offices.csv',
  companies: 'companies.csv',
  personnel: 'personnel.csv',
});

const ROW_FUNCTIONS: Record<EntityName, (ctx: Ctx, i: number) => Row> = {
  brokers: brokerRow,
  'broker-offices': officeRow,
  companies: companyRow,
  personnel: personRow,
};

const ORDER: readonly EntityName[] = ENTITY_NAMES;

/** Columns only an import of real filings fills (`bintel import form5500`): the generator leaves them blank. */
const FILING_ONLY = ['source_record', 'source_filings', 'broker_commissions', 'broker_codes', 'dba_name', 'funding_by_benefit'];
const filingOnly = (header: readonly string[]) => Object.fromEntries(FILING_ONLY.filter((c) => header.includes(c)).map((c) => [c, '']));

/**
 * Columns the generator derives from a row's own values (no random draw, so every other value
 * is as before): a generated sponsor filed for its filing year only, as a single employer; a
 * generated brokerage sells health and welfare contracts.
 */
const DERIVED: Partial<Record<EntityName, (row: Row) => Row>> = {
  companies: (row) => ({ filing_years: row.filing_year, first_filing_year: row.filing_year, plan_entity: 'single-employer' }),
  brokers: () => ({ lines_of_business: 'welfare' }),
  'broker-offices': () => ({ lines_of_business: 'welfare' }),
};
const withDerived = (name: EntityName, row: Row): Row => (DERIVED[name] ? { ...row, ...DERIVED[name]?.(row) } : row);

/** Checks the counts and seed; throws a RangeError naming the first bad option. */
export function checkGenerateOptions(opts: Pick<GenerateOptions, keyof Counts | 'seed'>): void {
  for (const k of ['companies', 'personnel', 'brokerOffices', 'brokers', 'seed'] as const) {
    const v = opts[k];
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${k} must be a non-negative integer, got ${String(v)}`);
  }
  if (opts.brokerOffices > 0 && opts.brokers === 0) throw new RangeError('broker offices need at least one broker');
  if (opts.personnel > 0 && opts.companies === 0 && opts.brokerOffices === 0) {
    throw new RangeError('personnel need at least one company or broker office to work at');
  }
}

export async function generate(opts: GenerateOptions): Promise<GenerateResult> {
  checkGenerateOptions(opts);
  const counts: Counts = { companies: opts.companies, personnel: opts.personnel, brokerOffices: opts.brokerOffices, brokers: opts.brokers };
  const rowsOf: Record<EntityName, number> = {
    brokers: counts.brokers,
    'broker-offices': counts.brokerOffices,
    companies: counts.companies,
    personnel: counts.personnel,
  };
  await mkdir(opts.out, { recursive: true });
  const ctx = createContext(opts.seed, counts, opts.named);

  const files = {} as Record<EntityName, string>;
  const bytes = {} as Record<EntityName, number>;
  for (const name of ORDER) {
    const header = csvFields(entity(name)).map((f) => f.name);
    const rowFn = ROW_FUNCTIONS[name];
    if (rowsOf[name] > 0) checkColumns(name, header, { ...filingOnly(header), ...withDerived(name, rowFn(ctx, 0)) });
    const path = join(opts.out, GENERATED_FILES[name]);
    bytes[name] = await writeCsv({
      path,
      header,
      rows: rowsOf[name],
      row: (i) => withDerived(name, rowFn(ctx, i)),
      onProgress: opts.onProgress ? (n) => opts.onProgress?.(name, n) : undefined,
    });
    files[name] = path;
  }
  return { files, rows: rowsOf, bytes };
}
