/**
 * The error report of a load: one CSV line per problem (row, line, field, issue, expected).
 * Created on the first problem; a stale report from an earlier run is removed.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { FieldIssue } from './validate.ts';

const csvCell = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export class ErrorReport {
  private stream: WriteStream | null = null;
  /** Rejected rows (a row may have several issues). */
  rows = 0;
  /** First few problems, for the summary. */
  readonly sample: string[] = [];

  constructor(readonly path: string) {}

  async reset(): Promise<void> {
    await rm(this.path, { force: true });
  }

  add(row: number, line: number, issues: readonly FieldIssue[]): void {
    this.rows++;
    if (!this.stream) {
      this.stream = createWriteStream(this.path);
      this.stream.write('row,line,field,issue,expected\n');
    }
    for (const i of issues) {
      this.stream.write(`${row},${line},${csvCell(i.field)},${csvCell(i.issue)},${csvCell(i.expected ?? '')}\n`);
      if (this.sample.length < 5) this.sample.push(`row ${row} (line ${line}): ${i.field}: ${i.issue}${i.expected ? ` (expected ${i.expected})` : ''}`);
    }
  }

  async close(): Promise<void> {
    const s = this.stream;
    if (!s) return;
    await new Promise<void>((resolve, reject) => s.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
}
