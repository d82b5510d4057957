/**
 * Streaming CSV writer: rows are produced one at a time, encoded into a chunk buffer and
 * written with backpressure, so memory stays flat whatever the row count. The file is
 * written under a temporary name and renamed when complete.
 */
import { createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Row } from './format.ts';

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;

/** One CSV cell: quoted when it holds a comma, a quote or a line break; inner quotes doubled. */
export function csvCell(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replace(QUOTE, '""')}"` : s;
}

/** One CSV line (without the line break) of the header's columns. */
export function csvLine(header: readonly string[], row: Row): string {
  let line = csvCell(row[header[0]] ?? '');
  for (let i = 1; i < header.length; i++) line += ',' + csvCell(row[header[i]] ?? '');
  return line;
}

/** Throws when a row function does not produce exactly the header's columns. */
export function checkColumns(entity: string, header: readonly string[], row: Row): void {
  const cols = new Set(Object.keys(row));
  const missing = header.filter((h) => !cols.has(h));
  const extra = [...cols].filter((c) => !header.includes(c));
  if (missing.length || extra.length) {
    throw new Error(
      `generator for ${entity} does not match its definition:` +
        (missing.length ? ` missing columns ${missing.join(', ')}` : '') +
        (extra.length ? ` unknown columns ${extra.join(', ')}` : ''),
    );
  }
}

export interface WriteCsvOptions {
  path: string;
  header: readonly string[];
  rows: number;
  row: (index: number) => Row;
  /** Called every `progressEvery` rows and once at the end. */
  onProgress?: (rows: number) => void;
  progressEvery?: number;
}

const CHUNK_CHARS = 1 << 18;

/** Writes `rows` rows; resolves with the file size in bytes. */
export async function writeCsv(opts: WriteCsvOptions): Promise<number> {
  const { path, header, rows, row, onProgress } = opts;
  const every = opts.progressEvery ?? 100_000;
  const tmp = `${path}.tmp`;
  const out = createWriteStream(tmp, { encoding: 'utf8', highWaterMark: 1 << 20 });
  try {
    let buf = header.map(csvCell).join(',') + '\n';
    for (let i = 0; i < rows; i++) {
      buf += csvLine(header, row(i)) + '\n';
      if (buf.length >= CHUNK_CHARS) {
        const ok = out.write(buf);
        buf = '';
        if (!ok) await once(out, 'drain');
      }
      if (onProgress && (i + 1) % every === 0 && i + 1 < rows) onProgress(i + 1);
    }
    out.end(buf);
    await finished(out);
  } catch (err) {
    out.destroy();
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await rename(tmp, path);
  onProgress?.(rows);
  return (await stat(path)).size;
}
