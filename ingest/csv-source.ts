/**
 * Streams a CSV file as raw rows, checking the header against the entity definition first.
 * Records are read as arrays (not header objects) so that column counts, record numbers and
 * line numbers are exact, in order, and in our hands.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'fast-csv';
import type { FieldDef } from '../mappings/types.ts';
import type { RawRow } from './transform.ts';
import { CsvParser, CsvSyntaxError } from './csv-parse.ts';

/** An input problem found before or while reading: the load stops, nothing is swapped. */
export class InputError extends Error {
  constructor(message: string, readonly where?: { row: number; line: number }) {
    super(message);
  }
}

/** Result of reading one record that cannot become a row. */
export interface BadRecord {
  row: number;
  line: number;
  field: string;
  issue: string;
  expected: string;
}

export interface CsvSource {
  header: string[];
  /** Raw rows, or bad records (wrong column count, invalid UTF-8), in file order, in batches (one per chunk read). */
  records: AsyncGenerator<(RawRow | BadRecord)[]>;
  /** Bytes read so far (for progress). */
  bytesRead: () => number;
  totalBytes: number;
}

export function isBadRecord(r: RawRow | BadRecord): r is BadRecord {
  return (r as BadRecord).issue !== undefined;
}

function newlines(values: readonly string[]): number {
  let n = 0;
  for (const v of values) for (let i = v.indexOf('\n'); i !== -1; i = v.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Explains a parse error. fast-csv fails a whole chunk on an unterminated quote, so the
 * record counter may lag; the error quotes the text at the quote, and the file is scanned
 * (only on this error path) for the line where that text starts.
 */
async function parseFailure(path: string, err: Error, line: number): Promise<CsvSyntaxError> {
  const m = /missing closing: '"' in line: at '([\s\S]*?)(\\n|\n|'$)/.exec(err.message);
  if (!m) return new CsvSyntaxError(err.message, line);
  const snippet = m[1].replace(/\r$/, '');
  let at = line;
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let n = 0;
  for await (const text of rl) {
    n++;
    if (n >= line && text.includes(snippet)) {
      at = n;
      break;
    }
  }
  rl.close();
  return new CsvSyntaxError(`unterminated quoted field (a " opened on line ${at} is never closed) at ${JSON.stringify(snippet.slice(0, 60))}`, at);
}

/** Checks header names against the CSV fields: unknown, duplicate and missing required columns. */
export function checkHeader(header: string[], fields: readonly FieldDef[], opts: { ignoreUnknown?: boolean } = {}): string[] {
  const known = new Set(fields.map((f) => f.name));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const h of header) {
    if (seen.has(h)) problems.push(`duplicate column "${h}"`);
    seen.add(h);
  }
  const unknown = header.filter((h) => !known.has(h));
  if (unknown.length && !opts.ignoreUnknown) problems.push(`unknown column(s): ${unknown.join(', ')} (pass --ignore-unknown-columns to skip them)`);
  const missing = fields.filter((f) => f.source.kind === 'csv' && f.source.required && !seen.has(f.name)).map((f) => f.name);
  if (missing.length) problems.push(`missing required column(s): ${missing.join(', ')}`);
  return problems;
}

interface LineRecord {
  values: string[];
  line: number;
}

/** Records from our RFC 4180 parser (see csv-parse.ts), a batch per chunk; invalid UTF-8 becomes U+FFFD. */
async function* bintelRecords(stream: ReadStream): AsyncGenerator<LineRecord[]> {
  const parser = new CsvParser();
  stream.setEncoding('utf8');
  for await (const chunk of stream) yield parser.push(chunk as string);
  yield parser.end();
}

/** Records from fast-csv's stream (`--parser fast-csv`), one per batch; lines are counted from the values. */
async function* fastCsvRecords(stream: ReadStream, path: string): AsyncGenerator<LineRecord[]> {
  const parser = stream.pipe(parse({ headers: false, ignoreEmpty: true }));
  stream.on('error', (err) => parser.destroy(err));
  let line = 1;
  const it = parser[Symbol.asyncIterator]() as AsyncIterator<string[]>;
  while (true) {
    let next: IteratorResult<string[]>;
    try {
      next = await it.next();
    } catch (err) {
      throw await parseFailure(path, err as Error, line);
    }
    if (next.done) return;
    yield [{ values: next.value, line }];
    line += 1 + newlines(next.value);
  }
}

/**
 * Opens a CSV file: refuses a missing, unreadable or empty file and a bad header with an
 * InputError before anything is loaded.
 */
export async function openCsv(path: string, fields: readonly FieldDef[], opts: { ignoreUnknown?: boolean; parser?: 'bintel' | 'fast-csv' } = {}): Promise<CsvSource> {
  let size: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new InputError(`${path} is not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path}: ${(err as Error).message}`);
  }
  if (size === 0) throw new InputError(`${path} is empty: expected a header line and data rows`);

  const stream = createReadStream(path, { highWaterMark: 256 << 10 });
  const it = (opts.parser === 'fast-csv' ? fastCsvRecords(stream, path) : bintelRecords(stream))[Symbol.asyncIterator]();

  // The header is the first record; batches may be empty (a chunk inside one long record).
  let pendingBatch: LineRecord[] = [];
  let headerRecord: LineRecord | undefined;
  try {
    while (!headerRecord) {
      const n = await it.next();
      if (n.done) break;
      [headerRecord, ...pendingBatch] = n.value;
    }
  } catch (err) {
    stream.destroy();
    throw new InputError(`cannot parse the header of ${path}: ${(err as Error).message}`);
  }
  if (!headerRecord) throw new InputError(`${path} has no header line`);
  const header = headerRecord.values.map((h) => h.trim());
  if (header.some((h) => h.includes('\uFFFD'))) throw new InputError(`the header of ${path} is not valid UTF-8`);
  const problems = checkHeader(header, fields, opts);
  if (problems.length) {
    stream.destroy();
    throw new InputError(`bad header in ${path}: ${problems.join('; ')}. Expected columns: ${fields.map((f) => f.name).join(', ')}`);
  }
  const known = new Set(fields.map((f) => f.name));
  const columns = header.map((h) => (known.has(h) ? h : null));
  let row = 0;

  const toRow = ({ values, line }: LineRecord): RawRow | BadRecord => {
    row++;
    if (values.length !== header.length) return { row, line, field: '(row)', issue: 'wrong_column_count', expected: `${header.length} columns, got ${values.length}` };
    for (let i = 0; i < values.length; i++) {
      if (values[i].includes('\uFFFD')) return { row, line, field: header[i], issue: 'invalid_utf8', expected: 'valid UTF-8 text' };
    }
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i];
      if (c) obj[c] = values[i];
    }
    return { row, line, values: obj };
  };

  async function* records(): AsyncGenerator<(RawRow | BadRecord)[]> {
    if (pendingBatch.length) yield pendingBatch.map(toRow);
    while (true) {
      let next: IteratorResult<LineRecord[]>;
      try {
        next = await it.next();
      } catch (err) {
        if (err instanceof CsvSyntaxError) throw new InputError(`row ${row + 1} (line ${err.line}): ${err.message}`, { row: row + 1, line: err.line });
        throw err;
      }
      if (next.done) return;
      if (next.value.length) yield next.value.map(toRow);
    }
  }

  return { header, records: records(), bytesRead: () => stream.bytesRead, totalBytes: size };
}
