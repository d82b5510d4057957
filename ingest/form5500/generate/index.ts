/**
 * `bintel generate --layout form5500 --year Y`: synthetic datasets in the exact DOL layout of
 * a plan year (column order of that year, quoting only where a value needs it, CRLF lines,
 * UTF-8 and Windows-1252 rows, broker name and address variants, amended filings, DFE
 * filings), streamed at any size. Sizes at scale 1 are those of a real year.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import { layoutOf, type Dataset } from '../datasets.ts';
import { writeZip } from '../zip.ts';
import { contractsOf, dfeRow, filingsOf, fullFormRow, shortFormRow, type GenRow } from './rows.ts';
import { createWorld, type World } from './world.ts';
import { vContractsOf, vDfeRow, vFilingsOf, vFullFormRow, vShortFormRow, VARIETY_RATES, type VarietyOptions } from './variety.ts';

/** `default`: what the importer expects (unchanged output); `real`: the variety of real filings (variety.ts). */
export type Form5500Variety = 'default' | 'real';
export const FORM5500_VARIETIES: readonly Form5500Variety[] = ['default', 'real'];

export interface Form5500GenerateOptions {
  out: string;
  years: readonly number[];
  /** 1 = a real year (f_5500 240k, SF 740k, Schedule A about 330k, Part I about 300k rows). */
  scale: number;
  seed: number;
  /** Write `<DATASET>_<YEAR>_Latest.zip` files (as the DOL publishes them) instead of CSVs. */
  zip?: boolean;
  /** `real`: write the variety of real filings (docs/data.md); default `default`, byte-identical to before. */
  variety?: Form5500Variety;
  /**
   * `real` only: the share of plans that filed yet in the newest year of `years` (the DOL's
   * files of the latest year are partial). Default 0.6 when several years are written, else 1.
   */
  newestFiled?: number;
  onProgress?: (file: string, rows: number) => void;
}

export interface GeneratedDataset {
  dataset: Dataset;
  year: number;
  path: string;
  rows: number;
  bytes: number;
}

/** Index space of short-form sponsors (distinct from full-form ones). */
const SF_BASE = 10_000_000;
const REAL_YEAR = { full: 240_000, short: 740_000, part1: 300_000 };

/** The sponsor counts of a scale: full-form filings include about 2% amendments and 1% DFEs. */
export function sizesOf(scale: number): { full: number; short: number; dfe: number; firms: number } {
  const full = Math.max(1, Math.round((REAL_YEAR.full * scale) / 1.03));
  return { full, short: Math.max(1, Math.round(REAL_YEAR.short * scale)), dfe: Math.round(full * 0.01), firms: Math.max(5, Math.round((REAL_YEAR.part1 * scale) / 40)) };
}

const NEEDS_QUOTES = /[",\r\n]/;
const cell = (s: string) => (NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const NON_ASCII = /[^\x00-\x7f]/;

/** One CSV line as bytes in a latin1 string: Windows-1252 rows as they are, others as UTF-8. */
function lineOf(columns: readonly string[], row: GenRow): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i ? ',' : '') + cell(row.cells[columns[i]] ?? '');
  return row.cp1252 || !NON_ASCII.test(line) ? line : Buffer.from(line, 'utf8').toString('latin1');
}

/** `real` variety: every field double-quoted, empty ones as `""`, as the DOL's files are written. */
const quoted = (s: string) => (s === '' ? '""' : s.includes('"') ? `"${s.replace(/"/g, '""')}"` : `"${s}"`);

function quotedLineOf(columns: readonly string[], row: GenRow): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i ? ',' : '') + quoted(row.cells[columns[i]] ?? '');
  return row.cp1252 || !NON_ASCII.test(line) ? line : Buffer.from(line, 'utf8').toString('latin1');
}

/** The file's text in chunks of about 256 KB (latin1 strings: one character per byte). */
function* chunks(columns: readonly string[], rows: Iterable<GenRow>, count: (n: number) => void, quoteAll = false): Generator<string> {
  let buf = (quoteAll ? columns.map(quoted) : columns).join(',') + '\r\n';
  let n = 0;
  const line = quoteAll ? quotedLineOf : lineOf;
  for (const r of rows) {
    buf += line(columns, r) + '\r\n';
    n++;
    if (buf.length >= 1 << 18) {
      yield buf;
      buf = '';
      count(n);
    }
  }
  count(n);
  yield buf;
}

async function writeFile(path: string, text: Iterable<string>): Promise<void> {
  const out = createWriteStream(path, { encoding: 'latin1' });
  for (const c of text) if (!out.write(c, 'latin1')) await once(out, 'drain');
  out.end();
  await finished(out);
}

function* fullForm(w: World, year: number, n: number, dfe: number): Generator<GenRow> {
  for (let j = 0; j < n; j++) for (const p of filingsOf(w, j, year, false)) yield fullFormRow(w, p);
  for (let k = 0; k < dfe; k++) yield dfeRow(year, k);
}

function* shortForm(w: World, year: number, n: number): Generator<GenRow> {
  for (let j = SF_BASE; j < SF_BASE + n; j++) for (const p of filingsOf(w, j, year, true)) yield shortFormRow(w, p);
}

function* schedule(w: World, year: number, n: number, part: 'contract' | 'brokers'): Generator<GenRow> {
  for (let j = 0; j < n; j++) {
    for (const p of filingsOf(w, j, year, false)) {
      for (const c of contractsOf(w, p)) {
        if (part === 'contract') yield c.contract;
        else yield* c.brokers;
      }
    }
  }
}

function* vFullForm(w: World, year: number, n: number, dfe: number, o: VarietyOptions): Generator<GenRow> {
  for (let j = 0; j < n; j++) for (const f of vFilingsOf(w, j, year, false, o)) yield vFullFormRow(w, f);
  for (let k = 0; k < dfe; k++) yield vDfeRow(year, k);
}

function* vShortForm(w: World, year: number, n: number, o: VarietyOptions): Generator<GenRow> {
  for (let j = SF_BASE; j < SF_BASE + n; j++) for (const f of vFilingsOf(w, j, year, true, o)) yield vShortFormRow(w, f);
}

function* vSchedule(w: World, year: number, n: number, part: 'contract' | 'brokers', o: VarietyOptions): Generator<GenRow> {
  for (let j = 0; j < n; j++) {
    for (const f of vFilingsOf(w, j, year, false, o)) {
      for (const c of vContractsOf(w, f)) {
        if (part === 'contract') yield c.contract;
        else yield* c.brokers;
      }
    }
  }
}

/** Writes the four datasets of each year; returns what was written. */
export async function generateForm5500(opts: Form5500GenerateOptions): Promise<GeneratedDataset[]> {
  if (!(opts.scale > 0)) throw new RangeError(`--scale must be a positive number, got ${opts.scale}`);
  await mkdir(opts.out, { recursive: true });
  const sizes = sizesOf(opts.scale);
  const w = createWorld(opts.seed, sizes.firms);
  const out: GeneratedDataset[] = [];
  const real = opts.variety === 'real';
  if (opts.variety !== undefined && !FORM5500_VARIETIES.includes(opts.variety)) throw new RangeError(`--variety must be one of ${FORM5500_VARIETIES.join(', ')}, got ${opts.variety}`);
  const newestFiled = opts.newestFiled ?? (opts.years.length > 1 ? VARIETY_RATES.newestFiled : 1);
  if (!(newestFiled > 0 && newestFiled <= 1)) throw new RangeError(`--newest-filed must be a share in (0, 1], got ${newestFiled}`);
  const vo: VarietyOptions = { newest: Math.max(...opts.years), newestFiled };
  for (const year of opts.years) {
    const sources: Record<Dataset, () => Iterable<GenRow>> = real
      ? {
        F_5500: () => vFullForm(w, year, sizes.full, sizes.dfe, vo),
        F_5500_SF: () => vShortForm(w, year, sizes.short, vo),
        F_SCH_A: () => vSchedule(w, year, sizes.full, 'contract', vo),
        F_SCH_A_PART1: () => vSchedule(w, year, sizes.full, 'brokers', vo),
      }
      : {
        F_5500: () => fullForm(w, year, sizes.full, sizes.dfe),
        F_5500_SF: () => shortForm(w, year, sizes.short),
        F_SCH_A: () => schedule(w, year, sizes.full, 'contract'),
        F_SCH_A_PART1: () => schedule(w, year, sizes.full, 'brokers'),
      };
    for (const dataset of Object.keys(sources) as Dataset[]) {
      const csvName = `${dataset.toLowerCase()}_${year}_latest.csv`;
      let rows = 0;
      const text = chunks(layoutOf(dataset, year), sources[dataset](), (n) => {
        rows = n;
        opts.onProgress?.(csvName, n);
      }, real);
      let path: string;
      if (opts.zip) {
        path = join(opts.out, `${dataset}_${year}_Latest.zip`);
        const layout = `${layoutOf(dataset, year).map((c, i) => `${i + 1}\t${c}`).join('\r\n')}\r\n`;
        await writeZip(path, [{ name: csvName, chunks: text }, { name: `${dataset}_${year}_Latest_layout.txt`, chunks: [layout] }]);
      } else {
        path = join(opts.out, csvName);
        await writeFile(path, text);
      }
      out.push({ dataset, year, path, rows, bytes: (await stat(path)).size });
    }
  }
  return out;
}
