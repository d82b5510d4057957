/**
 * What an import keeps of the rows it reads: compact filings (the latest of each plan and plan
 * year: an amended filing replaces the original), Schedule A contracts and Part I broker lines
 * by ACK_ID. Pure: rows in, state out; the import feeds it file by file.
 */
import type { Dataset } from './datasets.ts';
import { SCH_A_BENEFITS } from './datasets.ts';
import type { Facts } from './read.ts';

export interface Filing {
  ack: string;
  dataset: Dataset;
  year: number;
  ein: string;
  planNum: string;
  planName: string;
  sponsorName: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  businessCode: string;
  active: number | null;
  pensionCodes: string;
  welfareCodes: string;
  funding: { insurance: boolean; trust: boolean; generalAssets: boolean };
  netAssets: number | null;
  received: string;
  planYearEnd: string;
  initial: boolean;
  amended: boolean;
  extension: boolean;
  specialExtension: boolean;
  adminName: string;
  adminPhone: string;
  adminSigners: string[];
  sponsorSigners: string[];
}

export interface Contract {
  formId: string;
  carrier: string;
  persons: number;
  policyFrom: string;
  commissions: number;
  premium: number;
  benefits: string[];
}

export interface BrokerLine {
  ack: string;
  formId: string;
  name: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
  paid: number;
}

export interface Collected {
  /** Kept filings by plan (EIN, plan number, plan year). */
  plans: Map<string, Filing>;
  contracts: Map<string, Contract[]>;
  lines: Map<string, BrokerLine[]>;
  counts: { filings: number; dfe: number; superseded: number; noEin: number; contracts: number; lines: number; unnamedLines: number };
}

export function emptyCollected(): Collected {
  return { plans: new Map(), contracts: new Map(), lines: new Map(), counts: { filings: 0, dfe: 0, superseded: 0, noEin: 0, contracts: 0, lines: 0, unnamedLines: 0 } };
}

/** A plain integer amount or count ("" and malformed values are null). */
export const amount = (s: string): number | null => (/^-?\d+(\.\d+)?$/.test(s) ? Math.round(Number(s)) : null);
const yes = (s: string) => s === '1' || s.toUpperCase() === 'Y';
const digits = (s: string) => s.replace(/\D/g, '');
/** The date part of a date or timestamp ("2024-07-12T10:15:32-0500" → "2024-07-12"); '' when not a date. */
export const dateOf = (s: string) => (/^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : '');

/** The later of two filings of one plan and year: received later, else amended, else the higher ACK_ID. */
function later(a: Filing, b: Filing): Filing {
  if (a.received !== b.received) return a.received > b.received ? a : b;
  if (a.amended !== b.amended) return a.amended ? a : b;
  return a.ack > b.ack ? a : b;
}

export function filingOf(dataset: Dataset, year: number, f: Facts): Filing {
  return {
    ack: f.ack, dataset, year, ein: digits(f.ein), planNum: f.planNum, planName: f.planName, sponsorName: f.sponsorName,
    street: f.mailAddress1, city: f.mailCity || f.locCity, state: (f.mailState || f.locState).toUpperCase(), zip: f.mailZip || f.locZip,
    phone: f.phone, businessCode: f.businessCode, active: amount(f.activeEoy) ?? amount(f.activeBoy) ?? amount(f.participantsBoy),
    pensionCodes: f.pensionCodes, welfareCodes: f.welfareCodes,
    funding: { insurance: yes(f.fundingInsurance), trust: yes(f.fundingTrust), generalAssets: yes(f.fundingGeneralAssets) },
    netAssets: amount(f.netAssetsEoy), received: dateOf(f.dateReceived), planYearEnd: dateOf(f.planYearEnd),
    initial: yes(f.initial), amended: yes(f.amended), extension: yes(f.extAutomatic) || yes(f.ext5558), specialExtension: yes(f.extSpecial),
    adminName: yes(f.adminSameAsSponsor) ? '' : f.adminName, adminPhone: f.adminPhone,
    adminSigners: [f.adminSigned, f.adminManualSigned].filter(Boolean), sponsorSigners: [f.sponsorSigned, f.sponsorManualSigned].filter(Boolean),
  };
}

/** Adds one F_5500 or F_5500_SF row: DFE filings are counted and skipped; the later filing of a plan wins. */
export function addFiling(c: Collected, dataset: Dataset, year: number, f: Facts): void {
  c.counts.filings++;
  if (f.dfeCode && !f.entityCode) {
    c.counts.dfe++;
    return;
  }
  const filing = filingOf(dataset, year, f);
  if (filing.ein.length !== 9) {
    c.counts.noEin++;
    return;
  }
  const key = `${filing.ein}|${filing.planNum}|${year}`;
  const had = c.plans.get(key);
  if (had) c.counts.superseded++;
  c.plans.set(key, had ? later(had, filing) : filing);
}

const push = <T>(m: Map<string, T[]>, k: string, v: T) => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

export function addContract(c: Collected, f: Facts): void {
  c.counts.contracts++;
  push(c.contracts, f.ack, {
    formId: f.formId, carrier: f.carrierName, persons: amount(f.personsCovered) ?? 0, policyFrom: dateOf(f.policyFrom),
    commissions: (amount(f.commissions) ?? 0) + (amount(f.fees) ?? 0),
    premium: amount(f.earnedPremium) ?? amount(f.premiumReceived) ?? 0,
    benefits: [...new Set(SCH_A_BENEFITS.filter(([col]) => yes(f[col] ?? '')).map(([, b]) => b))],
  });
}

export function addBrokerLine(c: Collected, f: Facts): void {
  c.counts.lines++;
  if (!f.name) {
    c.counts.unnamedLines++;
    return;
  }
  const foreign = !f.address1 && !!f.foreignAddress1;
  push(c.lines, f.ack, {
    ack: f.ack, formId: f.formId, name: f.name, address1: foreign ? '' : f.address1, address2: foreign ? '' : f.address2,
    city: foreign ? '' : f.city, state: foreign ? '' : f.state, zip: foreign ? '' : f.zip,
    paid: (amount(f.commissions) ?? 0) + (amount(f.fees) ?? 0),
  });
}

/** Routes a row to its collector by dataset. */
export const ADD: Record<Dataset, (c: Collected, dataset: Dataset, year: number, f: Facts) => void> = {
  F_5500: addFiling,
  F_5500_SF: addFiling,
  F_SCH_A: (c, _d, _y, f) => addContract(c, f),
  F_SCH_A_PART1: (c, _d, _y, f) => addBrokerLine(c, f),
};
