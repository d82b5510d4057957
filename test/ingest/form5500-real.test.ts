// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Real rows of the DOL's Form 5500 datasets (test/fixtures/form5500/real/, each named with its
 * source in SOURCES.md) read through the import's reader: no damaged row, and every fact that
 * has a column with a value in the file comes out non-blank. Then the same rows are collected and
 * built (collect.ts, build.ts, as `bintel import form5500` does, without Elasticsearch) and the
 * companies and contacts are checked against the source rows: properties that hold whatever the
 * rows are (DFEs are no company, participants are the largest kept plan's line 5, the address is
 * the location address when there is one, contacts are people named on the filing), never
 * hard-coded answers. Today the real rows are the first 1,000 rows of F_5500_2017_Latest
 * (F_5500_2017_aparna.csv); no real Schedule A, Part I or 5500-SF row has been found.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { columnsOf, datasetOf, DATASETS } from '../../ingest/form5500/datasets.ts';
import { CsvParser } from '../../ingest/csv-parse.ts';
import { findDatasetFiles, readDataset, type DamagedRow, type DatasetFile, type FactRow } from '../../ingest/form5500/read.ts';
import { ADD, emptyCollected } from '../../ingest/form5500/collect.ts';
import { buildAll } from '../../ingest/form5500/build.ts';
import type { Doc } from '../../mappings/types.ts';

const REAL = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'form5500', 'real');

/** A file's rows as written: header column → trimmed value, by the line each record starts on. */
async function rawRows(label: string): Promise<Map<number, Map<string, string>>> {
  const raw = new Map<number, Map<string, string>>();
  const parser = new CsvParser({ bytes: true });
  const records = [...parser.push((await readFile(label)).toString('latin1')), ...parser.end()];
  const header = records[0].values.map((h) => h.trim().toUpperCase());
  for (const r of records.slice(1)) raw.set(r.line, new Map(header.map((h, i) => [h, (r.values[i] ?? '').trim()])));
  return raw;
}

test('every file of real rows is a dataset file named in SOURCES.md', async () => {
  const sources = await readFile(join(REAL, 'SOURCES.md'), 'utf8');
  for (const name of (await readdir(REAL)).filter((n) => n !== 'SOURCES.md')) {
    // Besides the CSVs, only the scripts that rebuild them from their source (named there too).
    if (!name.endsWith('.ts')) assert.ok(datasetOf(name), `${name} is not named as a DOL dataset file (datasetOf)`);
    assert.ok(sources.includes(name), `${name} is not in SOURCES.md`);
  }
});

test('real rows read with no damaged row, and each fact is non-blank where the file has a value', async () => {
  const found = await findDatasetFiles([REAL]);
  assert.ok(found.files.length > 0, 'real files found');
  for (const file of found.files) {
    const raw = await rawRows(file.label);
    const rows: FactRow[] = [];
    const damaged: DamagedRow[] = [];
    for await (const batch of readDataset(file, (d) => damaged.push(d))) rows.push(...batch);
    assert.equal(damaged, [], file.label);
    assert.is(rows.length, raw.size, `${file.label}: every row read`);
    for (const r of rows) {
      assert.ok(r.facts.ack, `${file.label}:${r.line} ACK_ID`);
      const values = raw.get(r.line)!;
      for (const [fact, col] of Object.entries(columnsOf(file.dataset))) {
        const v = col ? values.get(col) : undefined;
        if (v) assert.is(r.facts[fact], v, `${file.label}:${r.line} ${fact} (${col})`);
      }
    }
  }
});

// ---------------------------------------------------------------------------------------------
// The real filings built into companies and contacts.

/** A source filing row (F_5500 or F_5500_SF) by its facts' names, with the columns the checks need. */
interface Source {
  dataset: 'F_5500' | 'F_5500_SF';
  facts: Record<string, string>;
  file: string;
}

interface Built {
  /** Every filing row of the real files by ACK_ID. */
  rows: Map<string, Source>;
  companies: Doc[];
  contacts: Doc[];
  counts: Record<string, number>;
}

let built: Built | null = null;

/** Reads every real file through the reader, collects the rows and builds them (once). */
async function buildReal(): Promise<Built> {
  if (built) return built;
  const found = await findDatasetFiles([REAL]);
  const order = (f: DatasetFile) => DATASETS.indexOf(f.dataset);
  const files = [...found.files].sort((a, b) => order(a) - order(b));
  const rows = new Map<string, Source>();
  const c = emptyCollected();
  try {
    for (const file of files) {
      for await (const batch of readDataset(file, (d) => assert.unreachable(`damaged ${d.file}:${d.line} ${d.issue}`))) {
        for (const r of batch) {
          if (file.dataset === 'F_5500' || file.dataset === 'F_5500_SF') {
            assert.not.ok(rows.has(r.facts.ack), `ACK_ID ${r.facts.ack} once in the real files`);
            rows.set(r.facts.ack, { dataset: file.dataset, facts: r.facts, file: file.label });
          }
          ADD[file.dataset](c, file.dataset, file.year, r.facts, file.label);
        }
      }
    }
    c.endReading();
    const b = buildAll(c, '2018-06-01');
    const companies = [...b.companies.rows()];
    const contacts = [...b.personnel.rows()];
    built = { rows, companies, contacts, counts: { ...c.counts, ...b.counts } as unknown as Record<string, number> };
    return built;
  } finally {
    c.close();
  }
}

/** The ACK_ID of a `form5500:<dataset>:<plan year>:<ACK_ID>[:<file>]` provenance. */
const ackOf = (provenance: unknown): string => String(provenance).split(':')[3];
const filingsOf = (b: Built, company: Doc): Source[] => (company.source_filings as string[]).map((p) => {
  const row = b.rows.get(ackOf(p));
  assert.ok(row, `${company.ein}: source filing ${p} is a row of the real files`);
  return row as Source;
});
/** A DFE (line A(4), entity code 4, or a DFE kind M, C, P, E, G): an investment vehicle, never a company. */
const isDfe = (f: Record<string, string>) => f.entityCode === '4' || !!f.dfeCode;
/** Line 5 as the DOL writes it (a non-negative whole number), else null. */
const line5 = (f: Record<string, string>): number | null => (/^\d+$/.test(f.participantsBoy ?? '') ? Number(f.participantsBoy) : null);
const planKey = (f: Record<string, string>) => (/^\d{1,3}$/.test(f.planNum) ? String(Number(f.planNum)) : f.planNum);
const yearOf = (f: Record<string, string>) => Number((f.planYearBegin ?? '').slice(0, 4));
const yes = (s: string | undefined) => s === '1' || s?.toUpperCase() === 'Y';

test('real filings: counts (printed), DFEs skipped and never a company', async () => {
  const b = await buildReal();
  const all = [...b.rows.values()];
  const dfes = all.filter((r) => isDfe(r.facts));
  const multi = new Set(all.filter((r) => !isDfe(r.facts) && r.facts.entityCode === '1').map((r) => r.facts.ein));
  console.log(
    `  real Form 5500: ${b.counts.filings} filings read, ${b.counts.dfe} DFE skipped, ${b.counts.noEin} without an EIN, ${b.counts.superseded} superseded; ` +
      `${b.companies.length} companies (${b.companies.filter((d) => d.plan_entity === 'multiemployer').length} multiemployer, ` +
      `${b.companies.filter((d) => d.plan_entity === 'multiple-employer').length} multiple-employer), ${b.contacts.length} contacts; ` +
      `source: ${dfes.length} DFE rows, ${multi.size} sponsors with an entity code 1 filing`,
  );
  assert.is(b.counts.filings, all.length, 'every filing row counted');
  assert.is(b.counts.dfe, dfes.length, 'every DFE row (entity code 4 or a DFE code) counted as DFE');
  const used = new Set(b.companies.flatMap((d) => [...(d.source_filings as string[]).map(ackOf), ackOf(d.source_record)]));
  const employerEins = new Set(all.filter((r) => !isDfe(r.facts)).map((r) => r.facts.ein));
  const companyEins = new Set(b.companies.map((d) => String(d.ein)));
  for (const r of dfes) {
    assert.not.ok(used.has(r.facts.ack), `DFE ${r.facts.ack} (${r.facts.sponsorName}) is no company's filing`);
    if (!employerEins.has(r.facts.ein)) assert.not.ok(companyEins.has(r.facts.ein), `DFE ${r.facts.ack}: no company for EIN ${r.facts.ein}`);
  }
  for (const c of b.contacts) assert.not.ok(dfes.some((r) => r.facts.ack === ackOf(c.source_record)), `contact ${c.full_name} not from a DFE`);
});

test('real filings: one company per sponsor EIN, built from the latest filing of each of its plans', async () => {
  const b = await buildReal();
  const kept = [...b.rows.values()].filter((r) => !isDfe(r.facts) && r.facts.ein.replace(/\D/g, '').length === 9);
  const byEin = new Map<string, Source[]>();
  for (const r of kept) byEin.set(r.facts.ein, [...(byEin.get(r.facts.ein) ?? []), r]);
  const companies = new Map(b.companies.map((d) => [String(d.ein), d]));
  assert.is(companies.size, b.companies.length, 'one company per EIN');
  // One file year: no plan is stale, so every sponsor EIN of an employer's filing is a company.
  assert.equal([...companies.keys()].sort(), [...byEin.keys()].sort(), 'companies are the sponsor EINs of the non-DFE filings');
  for (const [ein, rows] of byEin) {
    // Each plan's latest plan year; of that year's filings the latest received (then amended, then higher ACK_ID).
    const plans = new Map<string, Source>();
    for (const r of rows) {
      const had = plans.get(planKey(r.facts));
      const later = !had || yearOf(r.facts) > yearOf(had.facts) || (yearOf(r.facts) === yearOf(had.facts) &&
        (r.facts.dateReceived !== had.facts.dateReceived ? r.facts.dateReceived > had.facts.dateReceived
          : yes(r.facts.amended) !== yes(had.facts.amended) ? yes(r.facts.amended) : r.facts.ack > had.facts.ack));
      if (later) plans.set(planKey(r.facts), r);
    }
    const latest = [...plans.values()];
    const live = latest.filter((r) => !yes(r.facts.final));
    const expected = (live.length ? live : latest).map((r) => r.facts.ack).sort();
    const company = companies.get(ein) as Doc;
    assert.equal((company.source_filings as string[]).map(ackOf).sort(), expected, `${ein}: source_filings are the latest filing of each live plan`);
  }
});

test('real filings: participants, filing year, plan entity, name and address come from the kept filings', async () => {
  const b = await buildReal();
  for (const company of b.companies) {
    const filings = filingsOf(b, company).map((s) => s.facts);
    const ein = String(company.ein);
    assert.ok(filings.every((f) => f.ein === ein), `${ein}: its filings are its own`);
    // participants: line 5 of the largest kept plan (the largest TOT_PARTCP_BOY_CNT).
    const counts = filings.map(line5).filter((n): n is number => n !== null);
    const largest = counts.length ? Math.max(...counts) : null;
    assert.is(company.participants, largest, `${ein} ${company.company_name}: participants = largest TOT_PARTCP_BOY_CNT of ${filings.map((f) => `${f.ack}=${f.participantsBoy || '""'}`).join(', ')}`);
    // filing_year: the plan year (FORM_PLAN_YEAR_BEGIN_DATE's year) of one of its filings, the latest.
    const years = filings.map(yearOf);
    assert.ok(years.includes(company.filing_year as number), `${ein}: filing_year ${company.filing_year} is the plan year of one of its filings (${years})`);
    assert.is(company.filing_year, Math.max(...years), `${ein}: filing_year is its latest plan year`);
    // Entity code 1 → multiemployer, 3 → multiple-employer, else single-employer.
    const codes = filings.map((f) => f.entityCode);
    const entity = codes.includes('1') ? 'multiemployer' : codes.includes('3') ? 'multiple-employer' : 'single-employer';
    if (codes.includes('1') && codes.includes('3')) assert.ok(['multiemployer', 'multiple-employer'].includes(company.plan_entity as string), ein);
    else assert.is(company.plan_entity, entity, `${ein} ${company.company_name}: plan_entity from TYPE_PLAN_ENTITY_CD ${codes}`);
    // Name and address: the filing the company names as its source_record, one of its filings;
    // the location address (line 2a) when that filing has one, else the mailing address.
    const named = b.rows.get(ackOf(company.source_record))?.facts;
    assert.ok(named && filings.includes(named), `${ein}: source_record is one of its filings`);
    assert.is(company.company_name, named.sponsorName, `${named.ack}: company_name`);
    const loc = !!named.locCity;
    const city = loc ? named.locCity : named.mailCity;
    const state = (loc ? named.locState : named.mailState).toUpperCase();
    const zip = (loc ? named.locZip : named.mailZip).slice(0, 5);
    assert.is(company.city, city || null, `${named.ack}: city from SPONS_DFE_${loc ? 'LOC' : 'MAIL'}_US_CITY`);
    assert.is(company.state, state || null, `${named.ack}: state from SPONS_DFE_${loc ? 'LOC' : 'MAIL'}_US_STATE`);
    assert.is(company.zip, zip || null, `${named.ack}: zip from SPONS_DFE_${loc ? 'LOC' : 'MAIL'}_US_ZIP`);
    // The latest received filing of the latest plan year names the company.
    const top = filings.filter((f) => yearOf(f) === Math.max(...years));
    assert.is(named.dateReceived, top.map((f) => f.dateReceived).sort().pop(), `${ein}: named by its latest received filing of its latest year`);
    // Employees: the most active participants of a kept plan (line 6a(2) at year end, else 6a(1)), a final filing's 0 unknown.
    const actives = filings.map((f) => {
      const n = /^\d+$/.test(f.activeEoy) ? Number(f.activeEoy) : /^\d+$/.test(f.activeBoy ?? '') ? Number(f.activeBoy) : null;
      return yes(f.final) && n === 0 ? null : n;
    }).filter((n): n is number => n !== null);
    assert.is(company.total_number_of_employees, actives.length ? Math.max(...actives) : null, `${ein}: total_number_of_employees`);
    // Benefit types: the welfare codes of the kept filings (there is no real Schedule A yet).
    const benefits = new Set(filings.flatMap((f) => (f.welfareCodes.match(/[0-9][A-Z]/g) ?? []).map((code) => WELFARE[code]).filter(Boolean)));
    assert.equal([...(company.benefit_types as string[])].sort(), [...benefits].sort(), `${ein}: benefit_types from TYPE_WELFARE_BNFT_CODE ${filings.map((f) => f.welfareCodes)}`);
  }
});

test('real filings: filing_years and first_filing_year are the plan years the sponsor filed for', async () => {
  const b = await buildReal();
  const years = new Map<string, Set<number>>();
  for (const r of b.rows.values()) if (!isDfe(r.facts)) years.set(r.facts.ein, (years.get(r.facts.ein) ?? new Set()).add(yearOf(r.facts)));
  for (const company of b.companies) {
    const all = [...(years.get(String(company.ein)) ?? [])].sort((a, b) => a - b);
    assert.equal(company.filing_years, all.map(String), `${company.ein}: filing_years`);
    assert.is(company.first_filing_year, all[0], `${company.ein}: first_filing_year`);
  }
});

/** Welfare codes (line 8b) → benefit types, as docs/data.md names them. */
const WELFARE: Record<string, string> = { '4A': 'Medical', '4B': 'Life', '4D': 'Dental', '4E': 'Vision', '4F': 'Short-Term Disability', '4H': 'Long-Term Disability' };

/** Words of a role or title that are never a first or last name on their own. */
const TITLES = new Set(
  ('PRESIDENT VICE VP CEO CFO COO CTO OWNER COOWNER TRUSTEE TRUSTEES MANAGER DIRECTOR SECRETARY TREASURER CONTROLLER ADMINISTRATOR ' +
    'CHAIRMAN CHAIRPERSON OFFICER EXECUTIVE PROPRIETOR PRINCIPAL PARTNER MEMBER SPONSOR EMPLOYER FIDUCIARY HR PLAN ADMIN SIGNER AUTHORIZED').split(' '),
);
/** Letters only, upper case: "O'Brien" → OBRIEN. */
const fold = (s: string) => s.toUpperCase().normalize('NFKD').replace(/[^A-Z ]+/g, '').replace(/\s+/g, ' ').trim();
/** An organisation's legal form as a word of a name. */
const ORG = /\b(INC|LLC|CORP|CORPORATION|INCORPORATED)\b/;

test('real filings: contacts are people named on the filing, never a title, a signature mark or an organisation', async () => {
  const b = await buildReal();
  const companies = new Map(b.companies.map((d) => [String(d.id), d]));
  for (const contact of b.contacts) {
    const company = companies.get(String(contact.company_id));
    assert.ok(company, `${contact.full_name}: its company exists`);
    const ack = ackOf(contact.source_record);
    assert.ok((company.source_filings as string[]).some((p) => ackOf(p) === ack), `${contact.full_name}: from one of ${company.ein}'s kept filings`);
    const f = (b.rows.get(ack) as Source).facts;
    for (const part of [contact.first_name, contact.last_name] as string[]) {
      assert.ok(part && !/\/S\//i.test(part), `${ack}: ${contact.full_name}: a name part is blank or holds /S/`);
      for (const w of fold(part).split(' ')) assert.not.ok(TITLES.has(w), `${ack}: ${contact.full_name}: "${part}" is a title word`);
    }
    // The raw names it can come from: every word of the contact is in the raw name.
    const names: [col: string, raw: string][] = [
      ['ADMIN_SIGNED_NAME', f.adminSigned], ['ADMIN_MANUAL_SIGNED_NAME', f.adminManualSigned], ['SPONS_SIGNED_NAME', f.sponsorSigned],
      ['SPONS_MANUAL_SIGNED_NAME', f.sponsorManualSigned], ['ADMIN_NAME', yes(f.adminSameAsSponsor) ? '' : f.adminName],
    ];
    const from = names.filter(([, raw]) => raw && fold(contact.full_name as string).split(' ').every((w) => fold(raw).replace(/ /g, '').includes(w)));
    assert.ok(from.length > 0, `${ack}: contact ${contact.full_name} comes from a name on the filing (${names.map(([c, r]) => `${c}=${r}`).join('; ')})`);
    assert.ok(from.some(([col, raw]) => col !== 'ADMIN_NAME' || !ORG.test(fold(raw))), `${ack}: contact ${contact.full_name} comes only from an organisation's ADMIN_NAME "${f.adminName}"`);
  }
});

// On the real rows, ACK_ID 20180226155540P030104270935001 (LAW OFFICES OF DONALD R. WARREN) has
// ADMIN_SIGNED_NAME and SPONS_SIGNED_NAME "DONALD R" (the signer's name cut after the middle
// initial): a first name and an initial is not a full name, so no contact (it made "Donald" "R").
test('real filings: no contact\'s last name is a lone initial', async () => {
  const b = await buildReal();
  for (const contact of b.contacts) {
    assert.ok(fold(String(contact.last_name)).replace(/ /g, '').length > 1, `${ackOf(contact.source_record)}: ${contact.full_name}: last name "${contact.last_name}"`);
  }
});

test.run();
