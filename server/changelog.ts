/**
 * The dated changelog (CHANGELOG.md, Keep a Changelog) as data for `GET /v1/changelog`: read
 * and parsed once, at start.
 */
import { readFileSync } from 'node:fs';

export interface ChangelogEntry {
  version: string;
  /** ISO date (YYYY-MM-DD). */
  date: string;
  /** Each change with its kind (Added, Changed, Deprecated, Removed, Fixed, Security). */
  changes: { type: string; description: string }[];
}

const FILE = new URL('../CHANGELOG.md', import.meta.url);

/** Released entries, newest first ([Unreleased] left out). */
export function parseChangelog(text: string): ChangelogEntry[] {
  const out: ChangelogEntry[] = [];
  let entry: ChangelogEntry | null = null;
  let type = '';
  for (const line of text.split('\n')) {
    const release = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?/.exec(line);
    if (release) {
      entry = release[1] === 'Unreleased' || !release[2] ? null : { version: release[1], date: release[2], changes: [] };
      if (entry) out.push(entry);
      type = '';
      continue;
    }
    const kind = /^### (\w+)/.exec(line);
    if (kind) type = kind[1];
    else if (entry && type && line.startsWith('- ')) entry.changes.push({ type, description: line.slice(2).trim() });
    else if (entry && type && /^\s+\S/.test(line) && entry.changes.length) entry.changes[entry.changes.length - 1].description += ` ${line.trim()}`;
  }
  return out;
}

let cached: ChangelogEntry[] | null = null;

/** The changelog of this build. */
export function changelog(): ChangelogEntry[] {
  cached ??= parseChangelog(readFileSync(FILE, 'utf8'));
  return cached;
}
