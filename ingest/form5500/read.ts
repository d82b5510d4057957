/**
 * Reading the DOL datasets: from zips, directories of extracted CSVs or single CSV files,
 * streaming, with columns found by header name. Each row comes out as its facts (the names of
 * datasets.ts), decoded field by field (UTF-8, else Windows-1252: the CSV parser's `bytes`
 * option); a damaged row is reported with its file and
 * line and never silently dropped.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { columnsOf, datasetOf, type Dataset } from './datasets.ts';
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

/** Maps a header to the index of each fact's column (-1: not in this file's year). */
function factIndex(dataset: Dataset, header: readonly string[]): [fact: string, index: number][] {
  const pos = new Map(header.map((h, i) => [h.trim().toUpperCase(), i]));
  return Object.entries(columnsOf(dataset)).map(([fact, col]) => [fact, col ? (pos.get(col) ?? -1) : -1]);
}

/**
 * Streams the rows of one file in batches (one per chunk read). `onDamaged` receives every
 * row that cannot be read: a wrong column count or a damaged quote.
 */
export async function* readDataset(file: DatasetFile, onDamaged: (d: DamagedRow) => void, onBytes?: (n: number) => void): AsyncGenerator<FactRow[]> {
  const stream = await file.open();
  stream.setEncoding('latin1');
  const parser = new CsvParser({ bytes: true, onDamaged: (d) => onDamaged({ file: file.label, ...d }) });
  let index: [string, number][] | null = null;
  let width = 0;
  const toRows = (records: CsvRecord[]): FactRow[] => {
    const rows: FactRow[] = [];
    for (const r of records) {
      if (!index) {
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
