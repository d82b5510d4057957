/**
 * A streaming RFC 4180 record parser: string chunks in, records (string[]) out, each with the
 * line it starts on. Unquoted lines (no `"`) are split directly; a record with quotes is
 * read field by field with indexOf, across as many lines as its quoted fields span.
 *
 * Why not fast-csv's stream here: it tokenizes character by character (an object per
 * character) and measured 70 µs of CPU per 540-byte row on this hardware, which is 45% of
 * the CPU the whole load needed and is taken from Elasticsearch on a shared machine. This
 * parser is checked against fast-csv, record for record, by a property test
 * (test/ingest/csv-parse.test.ts); `bintel ingest --parser fast-csv` still uses fast-csv.
 *
 * Options for files of mixed or unknown encoding (the Form 5500 import): with `bytes`, chunks
 * are latin1 strings (one character per byte, so commas, quotes and line breaks are found
 * exactly whatever the encoding) and each field of a record that is not plain ASCII is decoded
 * as UTF-8 when its bytes are valid UTF-8, else as Windows-1252. With `onDamaged`, a damaged
 * record (a stray quote, a quoted field still open after `maxRecordLines` lines, an
 * unterminated field at the end) is reported with its line and skipped, and parsing goes on.
 *
 * A stray quote swallows the lines after it into its record until a later quote closes it or
 * `maxRecordLines` is reached. So when a record spanning several lines turns out damaged (still
 * open at the limit or at the end, text after its closing quote, or, with `header`, a field
 * count other than the header's), that one record is reported on the line it starts on and the
 * lines after its first are parsed again as ordinary lines: every good row after a stray quote
 * is read. At most `maxRecordLines` lines are held, so memory stays flat; a file with no such
 * record is parsed exactly as before (the check costs one comparison per multi-line record).
 */

export interface CsvRecord {
  values: string[];
  /** 1-based line the record starts on. */
  line: number;
  /** Physical lines the record spans. */
  lines: number;
}

/** A record that cannot be parsed (the load stops: the rest of the file is ambiguous). */
export class CsvSyntaxError extends Error {
  constructor(message: string, readonly line: number) {
    super(message);
  }
}

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

/** One field from its latin1 form (its bytes): UTF-8 when valid, else Windows-1252. */
export function decodeField(latin1: string): string {
  if (!NON_ASCII.test(latin1)) return latin1;
  try {
    return utf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return fromCp1252(latin1);
  }
}

export interface CsvParserOptions {
  /** Chunks are bytes as latin1 strings; fields are decoded as UTF-8, else Windows-1252 (decodeField). */
  bytes?: boolean;
  /** Report damaged records here and go on (default: throw CsvSyntaxError). */
  onDamaged?: (d: { line: number; issue: string }) => void;
  /** With onDamaged: a quoted field open for more lines than this is taken as a stray quote (default 50). */
  maxRecordLines?: number;
  /**
   * With onDamaged: the first record is a header, and a record spanning several lines whose
   * field count differs from the header's is taken as a stray quote (reported, its lines read again).
   */
  header?: boolean;
}

type Parsed = { values: string[] } | { incomplete: true } | { error: string };

/** Parses one record that contains quotes; `incomplete` when a quoted field is still open. */
export function parseQuotedRecord(text: string): Parsed {
  const values: string[] = [];
  const n = text.length;
  let i = 0;
  while (true) {
    if (text.charCodeAt(i) === 34 /* " */) {
      let value = '';
      i++;
      while (true) {
        const j = text.indexOf('"', i);
        if (j === -1) return { incomplete: true };
        value += text.slice(i, j);
        if (text.charCodeAt(j + 1) === 34) {
          value += '"';
          i = j + 2;
        } else {
          i = j + 1;
          break;
        }
      }
      values.push(value);
      if (i >= n || (i === n - 1 && text.charCodeAt(i) === 13)) return { values };
      if (text.charCodeAt(i) !== 44 /* , */) return { error: `unexpected ${JSON.stringify(text[i])} after a closing quote (a quote inside a quoted field must be doubled)` };
      i++;
      if (i === n) return { values: [...values, ''] };
    } else {
      const j = text.indexOf(',', i);
      if (j === -1) {
        values.push(stripCr(text.slice(i)));
        return { values };
      }
      values.push(text.slice(i, j));
      i = j + 1;
      if (i === n) return { values: [...values, ''] };
    }
  }
}

function stripCr(s: string): string {
  return s.charCodeAt(s.length - 1) === 13 ? s.slice(0, -1) : s;
}

/** Whitespace-only records are skipped, as fast-csv's ignoreEmpty does. */
const isEmptyRecord = (v: string[]) => v.join('').replace(/\s+/g, '') === '';

/**
 * Incremental parser: `push(chunk)` returns the records completed by that chunk; `end()`
 * returns the last one. Empty lines and all-empty records are skipped (like fast-csv's
 * ignoreEmpty), but counted in line numbers. A leading BOM is removed.
 */
export class CsvParser {
  private rest = '';
  private line = 0;
  private pending: string | null = null;
  private pendingLine = 0;
  private pendingLines = 0;
  private first = true;
  private readonly bytes: boolean;
  private readonly onDamaged: CsvParserOptions['onDamaged'];
  private readonly maxRecordLines: number;
  private readonly header: boolean;
  /** Fields of the header (0: none yet, or no `header` option). */
  private width = 0;

  constructor(options: CsvParserOptions = {}) {
    this.bytes = options.bytes ?? false;
    this.onDamaged = options.onDamaged;
    this.maxRecordLines = options.maxRecordLines ?? 50;
    this.header = options.header ?? false;
  }

  push(chunk: string): CsvRecord[] {
    if (this.first && chunk.length) {
      if (this.bytes ? chunk.startsWith('\u00ef\u00bb\u00bf') : chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(this.bytes ? 3 : 1);
      this.first = false;
    }
    const out: CsvRecord[] = [];
    const text = this.rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      this.take(text.slice(start, nl), ++this.line, out);
      start = nl + 1;
    }
    this.rest = text.slice(start);
    return out;
  }

  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.rest.length) this.take(this.rest, ++this.line, out);
    this.rest = '';
    // Lines read again may leave another quoted field open: until none is.
    while (this.pending !== null) {
      const [text, line, lines] = [this.pending, this.pendingLine, this.pendingLines];
      const issue = `unterminated quoted field (a " opened on line ${line} is never closed)`;
      this.pending = null;
      if (!this.onDamaged) throw new CsvSyntaxError(issue, line);
      this.damagedSpan(text, line, lines, issue, out);
    }
    return out;
  }

  /** One physical line (without its \n), numbered `line`. */
  private take(raw: string, line: number, out: CsvRecord[]): void {
    if (this.pending !== null) {
      this.pending += `\n${raw}`;
      this.pendingLines++;
      this.finish(this.pending, this.pendingLine, this.pendingLines, out);
      return;
    }
    if (raw.indexOf('"') === -1) {
      const s = stripCr(raw);
      if (s.length === 0) return;
      const values = s.split(',');
      if (this.bytes && NON_ASCII.test(s)) for (let i = 0; i < values.length; i++) values[i] = decodeField(values[i]);
      if (!isEmptyRecord(values)) this.emit({ values, line, lines: 1 }, out);
      return;
    }
    this.finish(raw, line, 1, out);
  }

  private emit(record: CsvRecord, out: CsvRecord[]): void {
    if (this.header && this.width === 0) this.width = record.values.length;
    out.push(record);
  }

  /**
   * A damaged record that started on `line` and spans `lines` lines: reported once, on its
   * first line; the lines after that one (swallowed by its stray quote) are parsed again.
   */
  private damagedSpan(text: string, line: number, lines: number, issue: string, out: CsvRecord[]): void {
    this.onDamaged!({ line, issue: lines > 1 ? `${issue}; the ${lines - 1} line${lines > 2 ? 's' : ''} after it ${lines > 2 ? 'are' : 'is'} read again as rows` : issue });
    if (lines === 1) return;
    let start = text.indexOf('\n') + 1;
    for (let k = 1; k < lines; k++) {
      const nl = text.indexOf('\n', start);
      this.take(nl === -1 ? text.slice(start) : text.slice(start, nl), line + k, out);
      start = nl + 1;
    }
  }

  private finish(text: string, line: number, lines: number, out: CsvRecord[]): void {
    const r = parseQuotedRecord(text);
    if ('incomplete' in r) {
      if (this.onDamaged && lines >= this.maxRecordLines) {
        this.pending = null;
        this.damagedSpan(text, line, lines, `unterminated quoted field (a " opened on line ${line} does not close within ${this.maxRecordLines} lines)`, out);
        return;
      }
      this.pending = text;
      this.pendingLine = line;
      this.pendingLines = lines;
      return;
    }
    this.pending = null;
    if ('error' in r) {
      if (!this.onDamaged) throw new CsvSyntaxError(r.error, line);
      this.damagedSpan(text, line, lines, lines > 1 ? `${r.error}, in a quoted field opened on line ${line}` : r.error, out);
      return;
    }
    if (lines > 1 && this.width > 0 && this.onDamaged && r.values.length !== this.width) {
      this.damagedSpan(text, line, lines, `a quoted field opened on line ${line} spans ${lines} lines and leaves ${r.values.length} fields instead of ${this.width} (a stray quote)`, out);
      return;
    }
    if (this.bytes && NON_ASCII.test(text)) for (let i = 0; i < r.values.length; i++) r.values[i] = decodeField(r.values[i]);
    if (!isEmptyRecord(r.values)) this.emit({ values: r.values, line, lines }, out);
  }
}
