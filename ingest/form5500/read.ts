/**
 * Reading the DOL datasets: from zips, directories of extracted CSVs or single CSV files,
 * streaming, with columns found by header name. Each row comes out as its facts (the names of
 * datasets.ts), decoded field by field (UTF-8, else Windows-1252: the CSV parser's `bytes`
 * option); a damaged row is reported with its file and
 * line and never silently dropped, and a stray quote costs only its own row (the lines it
 * swallowed are read again: csv-parse.ts). A file whose header lacks a column the importer needs
 * is refused (neededColumns).
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { columnsOf, datasetOf, LAYOUT_YEARS, layoutOf, type Dataset } from './datasets.ts';
import { CsvParser, type CsvRecord } from '../csv-parse.ts';
import { listZip, openEntry } from './zip.ts';

/** One dataset file found in the inputs. */
export interface DatasetFile {
  dataset: Dataset;
  year: number;
  /** `path` or `zip!entry`, for messages and the error report. */
  label: string;
  bytes: number;
  open: () => Promise<Readable>;
}

/** A row that could not be read. */
export interface DamagedRow {
  file: string;
  line: number;
  issue: string;
}

/** A row's facts: fact name → decoded value ('' when blank or absent in the file's year). */
export type Facts = Record<string, string>;

export interface FoundFiles {
  files: DatasetFile[];
  /** Files that are not one of the four datasets (named and skipped). */
  skipped: string[];
  /** A second copy of a dataset and year already found (a zip and its extracted CSV): skipped, with the one kept. */
  duplicates: { label: string; kept: string }[];
}

async function fromZip(path: string, found: FoundFiles): Promise<void> {
  for (const e of await listZip(path)) {
    const label = `${path}!${e.name}`;
    const ds = datasetOf(e.name);
    if (!ds) found.skipped.push(label);
    else found.files.push({ ...ds, label, bytes: e.size, open: () => openEntry(path, e) });
  }
}

async function fromPath(path: string, found: FoundFiles): Promise<void> {
  const st = await stat(path).catch(() => null);
  if (!st) throw new Error(`not found: ${path}`);
  if (st.isDirectory()) {
    for (const name of (await readdir(path)).sort()) await fromPath(join(path, name), found);
    return;
  }
  if (/\.zip$/i.test(path)) return fromZip(path, found);
  const ds = datasetOf(path);
  if (!ds) found.skipped.push(path);
  else found.files.push({ ...ds, label: path, bytes: st.size, open: async () => createReadStream(path, { highWaterMark: 256 << 10 }) });
}

/** A dataset file's own name, whatever holds it (`dir/F_5500_2023_latest.csv`, `x.zip!F_5500_2023_latest.csv`), folded. */
const ownName = (label: string): string => (label.split(/[\\/!]/).pop() ?? label).toLowerCase();

/**
 * Every dataset file in the inputs (zips, directories, CSV files), and what was skipped. A file
 * is read once: a second file of the same name (a zip and the CSV extracted from it, the same
 * download in two folders) and size is a copy, skipped and reported; one of the same name and
 * another size is refused (which of the two is right cannot be told). Files of one dataset and
 * year with other names are all read.
 */
export async function findDatasetFiles(inputs: readonly string[]): Promise<FoundFiles> {
  const found: FoundFiles = { files: [], skipped: [], duplicates: [] };
  for (const input of inputs) await fromPath(resolve(input), found);
  const first = new Map<string, DatasetFile>();
  const files: DatasetFile[] = [];
  for (const f of found.files) {
    const kept = first.get(ownName(f.label));
    if (!kept) {
      first.set(ownName(f.label), f);
      files.push(f);
    } else if (kept.bytes === f.bytes) found.duplicates.push({ label: f.label, kept: kept.label });
    else throw new Error(`two different files named ${ownName(f.label)}: ${kept.label} (${kept.bytes} bytes) and ${f.label} (${f.bytes} bytes); import one of them`);
  }
  return { ...found, files };
}

/** A row read from a dataset file: its facts and the line it starts on. */
export interface FactRow {
  line: number;
  facts: Facts;
}

/** A header name as matched: surrounding spaces (and a BOM) trimmed, upper case. */
const headerName = (h: string): string => h.trim().toUpperCase();

/** Maps a header to the index of each fact's column (-1: not in this file's year). */
function factIndex(dataset: Dataset, header: readonly string[]): [fact: string, index: number][] {
  const pos = new Map(header.map((h, i) => [headerName(h), i]));
  return Object.entries(columnsOf(dataset)).map(([fact, col]) => [fact, col ? (pos.get(col) ?? -1) : -1]);
}

/** The columns that identify a row, needed in any year (those a year with no published layout must have). */
const IDENTIFYING: Record<Dataset, readonly string[]> = {
  F_5500: ['ACK_ID', 'SPONS_DFE_EIN', 'SPONS_DFE_PN'],
  F_5500_SF: ['ACK_ID', 'SF_SPONS_EIN', 'SF_PLAN_NUM'],
  F_SCH_A: ['ACK_ID', 'FORM_ID'],
  F_SCH_A_PART1: ['ACK_ID', 'FORM_ID', 'INS_BROKER_NAME'],
};

/**
 * The columns a file of this dataset and year must have: every column the importer reads
 * (columnsOf) that the DOL's layout of that year has. A column the year's layout lacks (an
 * older year) reads as blank. For a year with no published layout (newer than layouts.json),
 * the identifying columns (IDENTIFYING) and no others.
 */
export function neededColumns(dataset: Dataset, year: number): string[] {
  if (!LAYOUT_YEARS.includes(year)) return [...IDENTIFYING[dataset]];
  const layout = new Set(layoutOf(dataset, year));
  return [...new Set(Object.values(columnsOf(dataset)))].filter((c) => c && layout.has(c));
}

/** The needed columns (neededColumns) a header lacks, in the importer's order. */
export function missingColumns(file: Pick<DatasetFile, 'dataset' | 'year'>, header: readonly string[]): string[] {
  const have = new Set(header.map(headerName));
  return neededColumns(file.dataset, file.year).filter((c) => !have.has(c));
}

/** A file whose header lacks columns the importer needs: nothing of it is read. */
export class MissingColumnsError extends Error {
  constructor(readonly file: string, readonly dataset: Dataset, readonly year: number, readonly missing: readonly string[]) {
    super(`${file}: the header lacks ${missing.join(', ')}, which the DOL's ${dataset} layout of ${year} has and the import needs (is it a ${dataset} file of ${year}, complete?)`);
  }
}

/** The header of a file (its first record), read without reading the rest; [] when the file is empty. */
export async function headerOf(file: DatasetFile): Promise<string[]> {
  const stream = await file.open();
  stream.setEncoding('latin1');
  const parser = new CsvParser({ bytes: true, onDamaged: () => {} });
  try {
    for await (const chunk of stream) {
      const [first] = parser.push(chunk as string);
      if (first) return first.values;
    }
    return parser.end()[0]?.values ?? [];
  } finally {
    stream.destroy();
  }
}

/** The needed columns a file's header lacks (read from its header alone): [] when it has them all. */
export async function checkColumns(file: DatasetFile): Promise<string[]> {
  return missingColumns(file, await headerOf(file));
}

/**
 * Streams the rows of one file in batches (one per chunk read). `onDamaged` receives every
 * row that cannot be read: a wrong column count or a damaged quote. A header lacking a needed
 * column (missingColumns) throws MissingColumnsError before any row.
 */
export async function* readDataset(file: DatasetFile, onDamaged: (d: DamagedRow) => void, onBytes?: (n: number) => void): AsyncGenerator<FactRow[]> {
  const stream = await file.open();
  stream.setEncoding('latin1');
  const parser = new CsvParser({ bytes: true, header: true, onDamaged: (d) => onDamaged({ file: file.label, ...d }) });
  let index: [string, number][] | null = null;
  let width = 0;
  const toRows = (records: CsvRecord[]): FactRow[] => {
    const rows: FactRow[] = [];
    for (const r of records) {
      if (!index) {
        const missing = missingColumns(file, r.values);
        if (missing.length) {
          stream.destroy();
          throw new MissingColumnsError(file.label, file.dataset, file.year, missing);
        }
        index = factIndex(file.dataset, r.values);
        width = r.values.length;
        continue;
      }
      if (r.values.length !== width) {
        onDamaged({ file: file.label, line: r.line, issue: `wrong_column_count: expected ${width} columns, got ${r.values.length}` });
        continue;
      }
      const facts: Facts = {};
      for (const [fact, i] of index) facts[fact] = i < 0 ? '' : r.values[i].trim();
      rows.push({ line: r.line, facts });
    }
    return rows;
  };
  for await (const chunk of stream) {
    onBytes?.((chunk as string).length);
    yield toRows(parser.push(chunk as string));
  }
  yield toRows(parser.end());
}
