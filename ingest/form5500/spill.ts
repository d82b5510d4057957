/**
 * Documents kept on disk until the load takes them: the broker firms, offices and agents of a
 * full year (about 170,000 documents) held over 190 MB of heap as objects while the companies
 * were built; written as JSON lines to a temporary file (unlinked at once: it lives as long as
 * the descriptor, so nothing is left behind however the process ends) they cost a write buffer.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc } from '../../mappings/types.ts';

/** A file opened for reading and writing whose name is already gone. */
export function anonymousFile(prefix: string): number {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const fd = openSync(join(dir, 'spill'), 'w+');
  rmSync(dir, { recursive: true, force: true });
  return fd;
}

const CHUNK = 1 << 20;

/** Documents written once and read back once, in order (JSON: documents of strings, numbers, null and arrays round-trip exactly). */
export class DocSpill {
  count = 0;
  private fd = anonymousFile('bintel-form5500-docs-');
  private size = 0;
  private buf: string[] = [];
  private bytes = 0;

  add(doc: Doc): void {
    const line = `${JSON.stringify(doc)}\n`;
    this.buf.push(line);
    this.bytes += line.length;
    this.count++;
    if (this.bytes > CHUNK) this.flush();
  }

  private flush(): void {
    if (!this.buf.length) return;
    const b = Buffer.from(this.buf.join(''));
    let at = 0;
    while (at < b.length) at += writeSync(this.fd, b, at, b.length - at, this.size + at);
    this.size += b.length;
    this.buf = [];
    this.bytes = 0;
  }

  /** The documents in the order they were added; the file is released when they have all been read. */
  *docs(): Generator<Doc> {
    if (this.fd < 0) return;
    this.flush();
    let pos = 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    while (pos < this.size) {
      const n = readSync(this.fd, buf, 0, Math.min(CHUNK, this.size - pos), pos);
      if (n <= 0) break;
      pos += n;
      // Up to the last whole line (the next read starts after it): a character's bytes never straddle two strings.
      const end = buf.lastIndexOf(10, n - 1);
      if (end < 0) throw new Error('a spilled document longer than the read chunk');
      const text = buf.toString('utf8', 0, end + 1);
      pos -= n - end - 1;
      let at = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
        const line = text.slice(at, nl);
        at = nl + 1;
        yield JSON.parse(line) as Doc;
      }
    }
    this.close();
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}
