/**
 * Reads a CRM export (CSV) into the EINs and domains it names. Real exports carry many
 * columns under their own names (HubSpot: "Company Domain Name"; Salesforce: "Website"), so
 * columns are recognized by their normalized name and every other column is ignored. A row
 * counts when one of its recognized values normalizes; values that do not are reported with
 * their line.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { normalizeDomain, normalizeEin } from '../mappings/normalize.ts';
import { CsvParser, type CsvRecord } from './csv-parse.ts';
import { InputError } from './csv-source.ts';

/** Normalized header names read as a domain (or a URL, or an email) and as an EIN. */
const DOMAIN_COLUMNS = ['domain', 'company_domain', 'company_domain_name', 'website', 'company_website', 'website_url', 'url', 'email', 'email_domain'];
const EIN_COLUMNS = ['ein', 'company_ein', 'fein', 'tax_id', 'employer_identification_number'];

export interface CrmFileProblem {
  line: number;
  column: string;
  value: string;
  issue: 'invalid_domain' | 'invalid_ein';
}

export interface CrmFile {
  eins: string[];
  domains: string[];
  rows: number;
  /** Rows that gave no valid domain or EIN. */
  unusable: number;
  problems: CrmFileProblem[];
  domainColumns: string[];
  einColumns: string[];
}

const norm = (h: string) => h.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');

/** The domain of a website, URL or email address. */
function domainOf(value: string): string {
  const at = value.lastIndexOf('@');
  return normalizeDomain(at >= 0 && !value.includes('://') ? value.slice(at + 1) : value);
}

export async function readCrmFile(path: string): Promise<CrmFile> {
  try {
    if (!(await stat(path)).isFile()) throw new InputError(`${path} is not a file`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError((err as NodeJS.ErrnoException).code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path}: ${(err as Error).message}`);
  }
  const parser = new CsvParser();
  const eins = new Set<string>();
  const domains = new Set<string>();
  const out: CrmFile = { eins: [], domains: [], rows: 0, unusable: 0, problems: [], domainColumns: [], einColumns: [] };
  let header: string[] | null = null;
  let dCols: number[] = [];
  let eCols: number[] = [];
  const take = (records: CsvRecord[]) => {
    for (const r of records) {
      if (!header) {
        header = r.values.map((h) => h.trim());
        const names = header.map(norm);
        dCols = names.flatMap((n, i) => (DOMAIN_COLUMNS.includes(n) ? [i] : []));
        eCols = names.flatMap((n, i) => (EIN_COLUMNS.includes(n) ? [i] : []));
        if (!dCols.length && !eCols.length) {
          throw new InputError(`${path}: no domain or EIN column in the header (${header.join(', ')}); expected one of ${[...DOMAIN_COLUMNS, ...EIN_COLUMNS].join(', ')}`);
        }
        out.domainColumns = dCols.map((i) => header![i]);
        out.einColumns = eCols.map((i) => header![i]);
        continue;
      }
      out.rows++;
      let found = false;
      for (const [cols, set, fn, issue] of [[dCols, domains, domainOf, 'invalid_domain'], [eCols, eins, normalizeEin, 'invalid_ein']] as const) {
        for (const i of cols) {
          const raw = (r.values[i] ?? '').trim();
          if (!raw) continue;
          const v = fn(raw);
          if (v) {
            set.add(v);
            found = true;
          } else out.problems.push({ line: r.line, column: header[i], value: raw.slice(0, 80), issue });
        }
      }
      if (!found) out.unusable++;
    }
  };
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 256 << 10 });
  for await (const chunk of stream) take(parser.push(chunk as string));
  take(parser.end());
  if (!header) throw new InputError(`${path} is empty: expected a header line`);
  out.eins = [...eins].sort();
  out.domains = [...domains].sort();
  return out;
}
