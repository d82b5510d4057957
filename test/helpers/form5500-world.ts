/**
 * Form 5500 rows as the DOL files them, written by column name, fed through the importer's
 * collector and builder (no files, no Elasticsearch): the pure tests of what the filings mean.
 * A column the importer does not read fails the test that writes it ("the importer reads X").
 */
import * as assert from 'uvu/assert';
import { ADD, emptyCollected } from '../../ingest/form5500/collect.ts';
import { buildAll } from '../../ingest/form5500/build.ts';
import { columnsOf, type Dataset } from '../../ingest/form5500/datasets.ts';
import type { Doc } from '../../mappings/types.ts';

export type Cols = Record<string, string>;

export interface BuiltWorld {
  companies: Doc[];
  personnel: Doc[];
  brokers: Doc[];
  offices: Doc[];
  counts: Record<string, number>;
}

let acks = 0;
/** A fresh ACK_ID (the DOL's shape: date, time, a form code and a sequence). */
export const newAck = (): string => `20250312101500NAL${String(++acks).padStart(10, '0')}001`;

/** The facts of a row of `dataset` with the given columns set (every other fact blank). */
function factsOf(dataset: Dataset, cols: Cols): Record<string, string> {
  const byColumn = new Map<string, string>();
  for (const [fact, col] of Object.entries(columnsOf(dataset))) if (col) byColumn.set(col, fact);
  const facts: Record<string, string> = Object.fromEntries(Object.keys(columnsOf(dataset)).map((k) => [k, '']));
  for (const [col, v] of Object.entries(cols)) {
    const fact = byColumn.get(col);
    assert.ok(fact, `the importer reads ${dataset}.${col}`);
    facts[fact as string] = v;
  }
  return facts;
}

export interface World {
  /** A full-form (F_5500) or short-form filing read from the given year's file; returns its ACK_ID. */
  filing(cols: Cols, file?: { dataset?: 'F_5500' | 'F_5500_SF'; year?: number }): string;
  /** A Schedule A contract of a filing. */
  contract(ack: string, cols: Cols): void;
  /** A Schedule A Part I line of a filing. */
  line(ack: string, cols: Cols): void;
  build(today?: string): BuiltWorld;
}

export function world(): World {
  const filings: [Dataset, number, Cols][] = [];
  const contracts: Cols[] = [];
  const lines: Cols[] = [];
  return {
    filing(cols, file = {}) {
      const dataset = file.dataset ?? 'F_5500';
      const ack = cols.ACK_ID ?? newAck();
      const defaults: Cols = dataset === 'F_5500_SF'
        ? { SF_PLAN_NUM: '501', SF_SPONSOR_NAME: 'ACME WIDGETS INC', SF_SPONS_US_CITY: 'DAYTON', SF_SPONS_US_STATE: 'OH', SF_SPONS_US_ZIP: '45402', SF_BUSINESS_CODE: '332000' }
        : { SPONS_DFE_PN: '501', SPONSOR_DFE_NAME: 'ACME WIDGETS INC', SPONS_DFE_MAIL_US_CITY: 'DAYTON', SPONS_DFE_MAIL_US_STATE: 'OH', SPONS_DFE_MAIL_US_ZIP: '45402', BUSINESS_CODE: '332000' };
      filings.push([dataset, file.year ?? 2024, { DATE_RECEIVED: '2025-03-12', ...defaults, ...cols, ACK_ID: ack }]);
      return ack;
    },
    contract(ack, cols) {
      contracts.push({ FORM_ID: String(contracts.length + 1), ...cols, ACK_ID: ack });
    },
    line(ack, cols) {
      lines.push({ FORM_ID: '1', ROW_ORDER: String(lines.length + 1), ...cols, ACK_ID: ack });
    },
    build(today = '2025-06-01') {
      const c = emptyCollected();
      try {
        for (const [dataset, year, cols] of filings) ADD[dataset](c, dataset, year, factsOf(dataset, cols));
        for (const cols of contracts) ADD.F_SCH_A(c, 'F_SCH_A', 2024, factsOf('F_SCH_A', cols));
        for (const cols of lines) ADD.F_SCH_A_PART1(c, 'F_SCH_A_PART1', 2024, factsOf('F_SCH_A_PART1', cols));
        c.endReading();
        const b = buildAll(c, today);
        return {
          brokers: [...b.brokers.rows()], offices: [...b['broker-offices'].rows()], companies: [...b.companies.rows()], personnel: [...b.personnel.rows()],
          counts: { ...c.counts, ...b.counts } as unknown as Record<string, number>,
        };
      } finally {
        c.close();
      }
    },
  };
}

/** The one company of a built world with that EIN. */
export function companyOf(w: BuiltWorld, ein: string): Doc {
  const doc = w.companies.find((d) => d.ein === ein);
  assert.ok(doc, `a company with EIN ${ein}`);
  return doc as Doc;
}
