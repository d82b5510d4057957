/**
 * Records of a DOL CSV from raw bytes, tolerant of what real files hold.
 *
 * Bytes are read as latin1 (one character per byte, so commas, quotes and line breaks are
 * found exactly whatever the encoding), split into records with the project's RFC 4180 record
 * parser (`parseQuotedRecord`), and only then is each field decoded: as UTF-8 when its bytes
 * are valid UTF-8, else as Windows-1252 (the DOL files mix both). ASCII fields, nearly all of
 * them, are returned as they are. A damaged record (a stray quote, a quoted field that never
 * closes within MAX_RECORD_LINES lines) is reported with its line and the reader goes on.
 */
import { parseQuotedRecord } from '../csv-parse.ts';

const NON_ASCII = /[^\x00-\x7f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });
/**
 * Windows-1252 bytes 0x80-0x9F (the rest is Latin-1). Written out because Node builds without
 * full ICU decode the 'windows-1252' label as plain Latin-1.
 */
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const CP1252_RE = /[\x80-\x9f]/g;

/** Windows-1252 text from its latin1 form. */
export function fromCp1252(latin1: string): string {
  return latin1.replace(CP1252_RE, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
}

/** One field from its latin1 form: UTF-8 when valid, else Windows-1252. */
export function decodeField(latin1: string): string {
  if (!NON_ASCII.test(latin1)) return latin1;
  try {
    return utf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return fromCp1252(latin1);
  }
}

export interface LineRecord {
  values: string[];
  /** 1-based line the record starts on. */
  line: number;
}

export interface DamagedRecord {
  line: number;
  issue: string;
}

/** A quoted field open for more lines than this is taken as a stray quote. */
const MAX_RECORD_LINES = 50;
const UTF8_BOM = '\u00ef\u00bb\u00bf';

/**
 * Incremental record splitter over latin1 text: `push(chunk)` returns the records completed by
 * the chunk and the damaged ones; `end()` the rest. Blank lines are skipped but counted.
 */
export class RecordReader {
  private rest = '';
  private line = 0;
  private pending: string | null = null;
  private pendingLine = 0;
  private pendingLines = 0;
  private first = true;

  push(chunk: string, out: LineRecord[], bad: DamagedRecord[]): void {
    if (this.first && chunk.length) {
      if (chunk.startsWith(UTF8_BOM)) chunk = chunk.slice(3);
      this.first = false;
    }
    const text = this.rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.take(text.slice(start, nl), out, bad);
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }

  end(out: LineRecord[], bad: DamagedRecord[]): void {
    if (this.rest.length) this.take(this.rest, out, bad);
    this.rest = '';
    if (this.pending !== null) bad.push({ line: this.pendingLine, issue: 'unterminated quoted field at the end of the file' });
    this.pending = null;
  }

  private take(raw: string, out: LineRecord[], bad: DamagedRecord[]): void {
    this.line++;
    if (this.pending !== null) {
      this.pending += `\n${raw}`;
      this.pendingLines++;
      this.finish(this.pending, this.pendingLine, out, bad);
      return;
    }
    if (raw.indexOf('"') === -1) {
      const s = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
      if (s.length) out.push({ values: s.split(','), line: this.line });
      return;
    }
    this.pendingLines = 1;
    this.finish(raw, this.line, out, bad);
  }

  private finish(text: string, line: number, out: LineRecord[], bad: DamagedRecord[]): void {
    const r = parseQuotedRecord(text);
    if ('incomplete' in r) {
      if (this.pendingLines >= MAX_RECORD_LINES) {
        bad.push({ line, issue: `a quoted field opened on line ${line} does not close within ${MAX_RECORD_LINES} lines (record skipped)` });
        this.pending = null;
        return;
      }
      this.pending = text;
      this.pendingLine = line;
      return;
    }
    this.pending = null;
    if ('error' in r) bad.push({ line, issue: r.error });
    else out.push({ values: r.values, line });
  }
}
