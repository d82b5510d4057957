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

export interface Form5500GenerateOptions {
  out: string;
  years: readonly number[];
  /** 1 = a real year (f_5500 240k, SF 740k, Schedule A about 330k, Part I about 300k rows). */
  scale: number;
  seed: number;
  /** Write `<DATASET>_<YEAR>_Latest.zip` files (as the DOL publishes them) instead of CSVs. */
  zip?: boolean;
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

/** The file's text in chunks of about 256 KB (latin1 strings: one character per byte). */
function* chunks(columns: readonly string[], rows: Iterable<GenRow>, count: (n: number) => void): Generator<string> {
  let buf = columns.join(',') + '\r\n';
  let n = 0;
  for (const r of rows) {
    buf += lineOf(columns, r) + '\r\n';
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

/** Writes the four datasets of each year; returns what was written. */
export async function generateForm5500(opts: Form5500GenerateOptions): Promise<GeneratedDataset[]> {
  if (!(opts.scale > 0)) throw new RangeError(`--scale must be a positive number, got ${opts.scale}`);
  await mkdir(opts.out, { recursive: true });
  const sizes = sizesOf(opts.scale);
  const w = createWorld(opts.seed, sizes.firms);
  const out: GeneratedDataset[] = [];
  for (const year of opts.years) {
    const sources: Record<Dataset, () => Iterable<GenRow>> = {
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
      });
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
