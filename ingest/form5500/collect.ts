/**
 * What an import keeps of the rows it reads, in as little memory as a full year allows (about
 * a million filings): the latest filing of each plan and plan year (an amended filing replaces
 * the original) as numbers in typed columns, its names and addresses spilled to a temporary
 * file (read back for the sponsor's latest year only), Schedule A contracts folded into their
 * filing as they are read (premiums, commissions, the contract covering the most persons,
 * carriers, benefit types) and Part I broker lines as interned ids. No row object and no string
 * of the input is kept: a field sliced from a 256 KB chunk would keep the whole chunk alive.
 * The import feeds it file by file, filings before their schedules.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dataset } from './datasets.ts';
import { SCH_A_BENEFITS } from './datasets.ts';
import type { Facts } from './read.ts';
import { firmKey, officeKey, zip5 } from './resolve.ts';
import { lateFiler } from './signals.ts';

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

/** A plain integer amount or count ("" and malformed values are null). */
export const amount = (s: string): number | null => (/^-?\d+(\.\d+)?$/.test(s) ? Math.round(Number(s)) : null);

/**
 * The premium of a Schedule A welfare contract: the first positive of line 9a(1)(d) earned and
 * 9a(1)(a) received (experience-rated contracts) and line 10a charges paid (non-experience-rated
 * ones); a line filed as 0 never hides a positive one. 0 when none is.
 */
export function contractPremium(f: Facts): number {
  for (const v of [f.earnedPremium, f.premiumReceived, f.chargesPaid]) {
    const n = amount(v ?? '');
    if (n !== null && n > 0) return n;
  }
  return 0;
}
const yes = (s: string) => s === '1' || s.toUpperCase() === 'Y';
const digits = (s: string) => s.replace(/\D/g, '');
/** The date part of a date or timestamp ("2024-07-12T10:15:32-0500" → "2024-07-12"); '' when not a date. */
export const dateOf = (s: string) => (/^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : '');

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


/** Form 5500 welfare characteristic codes → the project's benefit types. */
export const WELFARE_CODES: Readonly<Record<string, string>> = {
  '4A': 'Medical', '4B': 'Life', '4D': 'Dental', '4E': 'Vision', '4F': 'Short-Term Disability', '4H': 'Long-Term Disability',
};
/** Pension code 2J: a 401(k) feature. */
export const CODE_401K = '2J';
export const codesOf = (s: string): string[] => s.match(/[0-9][A-Z]/g) ?? [];

/** Benefit types as bits (welfare codes' and Schedule A's, in that order). */
export const BENEFITS: readonly string[] = [...new Set([...Object.values(WELFARE_CODES), ...SCH_A_BENEFITS.map(([, b]) => b)])];
const BENEFIT_BIT = new Map(BENEFITS.map((b, i) => [b, 1 << i]));
export const STOP_LOSS_BIT = BENEFIT_BIT.get('Stop-Loss') as number;
export const benefitsOf = (mask: number): string[] => BENEFITS.filter((_, i) => mask & (1 << i));

/** Filing flags. */
export const FLAG = { short: 1, initial: 2, amended: 4, late: 8, welfare: 16, k401: 32, insurance: 64, trust: 128, generalAssets: 256 } as const;

/** A date as YYYYMMDD (0 for none), which orders as the date string does. */
const dayNum = (d: string) => (d ? Number(d.slice(0, 4) + d.slice(5, 7) + d.slice(8, 10)) : 0);
export const dayStr = (n: number) => (n ? `${String(n).slice(0, 4)}-${String(n).slice(4, 6)}-${String(n).slice(6, 8)}` : '');

/**
 * A copy of a string that shares no memory with the input: V8 keeps a slice of 13 or more
 * characters as a view of its parent (here, the chunk the row was read from).
 */
const own = (s: string): string => (s.length < 13 ? s : (` ${s}`).slice(1));

/** Strings by id, each stored once. */
export class Interner {
  private ids = new Map<string, number>();
  readonly list: string[] = [];
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      const o = own(s);
      this.list.push(o);
      this.ids.set(o, i);
    }
    return i;
  }
}

/**
 * A map from numbers (integers below 2^53) to non-negative integers in two typed arrays (open
 * addressing): 12 bytes an entry, nothing for the garbage collector to trace, where a Map of
 * a million entries takes about 80.
 */
export class NumTable {
  private keys: Float64Array;
  private vals: Int32Array;
  private used = 0;
  constructor(capacity = 1 << 12) {
    this.keys = new Float64Array(capacity);
    this.vals = new Int32Array(capacity).fill(-1);
  }
  private static hash(k: number): number {
    const lo = k >>> 0;
    const hi = (k / 4294967296) >>> 0;
    return Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) ^ (hi >>> 7);
  }
  private at(k: number): number {
    const mask = this.keys.length - 1;
    let i = NumTable.hash(k) & mask;
    while (this.vals[i] !== -1 && this.keys[i] !== k) i = (i + 1) & mask;
    return i;
  }
  get(k: number): number | undefined {
    const i = this.at(k);
    return this.vals[i] === -1 ? undefined : this.vals[i];
  }
  set(k: number, v: number): void {
    let i = this.at(k);
    if (this.vals[i] === -1) {
      if ((this.used + 1) * 4 > this.keys.length * 3) {
        this.rehash();
        i = this.at(k);
      }
      this.used++;
      this.keys[i] = k;
    }
    this.vals[i] = v;
  }
  private rehash(): void {
    const [keys, vals] = [this.keys, this.vals];
    this.keys = new Float64Array(keys.length * 2);
    this.vals = new Int32Array(keys.length * 2).fill(-1);
    for (let i = 0; i < keys.length; i++) {
      if (vals[i] === -1) continue;
      const j = this.at(keys[i]);
      this.keys[j] = keys[i];
      this.vals[j] = vals[i];
    }
  }
}

/**
 * An ACK_ID as a 53-bit number (two 32-bit FNV-1a hashes, one of them cut to 21 bits). Two
 * kept filings with one number are told apart exactly (the second one is looked up by its
 * string); a schedule row of a filing that was not kept could match a kept one's number with a
 * chance of about 1 in 10^10 per row.
 */
export function ackNumber(ack: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < ack.length; i++) {
    const c = ack.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
  }
  return (h1 >>> 0) * 2097152 + ((h2 >>> 0) & 0x1fffff);
}

type Column = Float64Array | Int32Array;

/** Indices 0..count-1 grouped by their slot (in index order within a slot), and where each slot's group starts. */
export function bySlot(slots: number, count: number, slotOf: Int32Array): { order: Int32Array; start: Int32Array } {
  const start = new Int32Array(slots + 1);
  for (let i = 0; i < count; i++) start[slotOf[i] + 1]++;
  for (let s = 0; s < slots; s++) start[s + 1] += start[s];
  const at = start.slice(0, slots);
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[at[slotOf[i]]++] = i;
  return { order, start };
}
const grown = <T extends Column>(a: T, n: number): T => {
  if (n < a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(1024, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
};

/** What a built filing holds besides its columns: the text spilled to disk. */
type FilingText = [ack: string, sponsorName: string, planName: string, city: string, state: string, zip: string, phone: string, adminName: string, adminPhone: string, adminSigners: string[], sponsorSigners: string[], planNum: string];

/**
 * A kept filing, rebuilt from the columns (and the spilled text when asked). The characteristic
 * codes, the plan year's end and the extension indicators are not kept: what the outputs need
 * of them is (`welfare`, `k401`, `late`).
 */
export interface KeptFiling extends Omit<Filing, 'pensionCodes' | 'welfareCodes' | 'planYearEnd' | 'extension' | 'specialExtension' | 'street'> {
  slot: number;
  /** A welfare plan (welfare characteristic codes filed). */
  welfare: boolean;
  /** Pension code 2J (a 401(k) feature). */
  k401: boolean;
  late: boolean;
}

export interface Counts {
  filings: number; dfe: number; superseded: number; noEin: number; contracts: number; lines: number; unnamedLines: number; orphanSchedules: number;
}

const SLOT_COLUMNS = ['year', 'ein', 'received', 'flags', 'codeBenefits', 'contractBenefits', 'business', 'active', 'netAssets', 'premium', 'commissions', 'maxPersons', 'renewal', 'textPos', 'textLen'] as const;
const LINE_COLUMNS = ['lineSlot', 'lineFirm', 'lineOffice', 'lineName', 'lineAddress', 'linePaid', 'linePremium', 'lineCarrier'] as const;

/**
 * The collected state. Filings occupy slots in the order their plan is first seen (a later
 * filing of the plan takes over the slot); Part I lines are kept only for kept filings.
 */
export class Collected {
  /** Kept filings (slots). */
  n = 0;
  year = new Int32Array(1024);
  ein = new Int32Array(1024);
  received = new Int32Array(1024);
  flags = new Int32Array(1024);
  /** Benefit bits from the welfare codes, and from Schedule A. */
  codeBenefits = new Int32Array(1024);
  contractBenefits = new Int32Array(1024);
  business = new Int32Array(1024);
  active = new Float64Array(1024);
  netAssets = new Float64Array(1024);
  premium = new Float64Array(1024);
  commissions = new Float64Array(1024);
  /** Persons covered by the filing's biggest contract (-1: no contract) and that contract's policy start (string id). */
  maxPersons = new Float64Array(1024);
  renewal = new Int32Array(1024);
  textPos = new Float64Array(1024);
  textLen = new Int32Array(1024);
  /** Carriers (non-empty names) of contracts: slot and string id, in file order. */
  private nCarriers = 0;
  private carrierSlot = new Int32Array(1024);
  private carrierName = new Int32Array(1024);
  private carrierIndex: { order: Int32Array; start: Int32Array } | null = null;
  /** Interned strings: business codes, dates, carriers, firm and office keys, broker names, addresses. */
  readonly strings = new Interner();
  counts: Counts = { filings: 0, dfe: 0, superseded: 0, noEin: 0, contracts: 0, lines: 0, unnamedLines: 0, orphanSchedules: 0 };

  /** Part I lines: slot, firm key, office key (-1: none), name as filed, address (city|state|zip5|street), paid, contract premium and carrier. */
  nLines = 0;
  lineSlot = new Int32Array(1024);
  lineFirm = new Int32Array(1024);
  lineOffice = new Int32Array(1024);
  lineName = new Int32Array(1024);
  lineAddress = new Int32Array(1024);
  linePaid = new Float64Array(1024);
  linePremium = new Float64Array(1024);
  lineCarrier = new Int32Array(1024);

  /** Slot by plan key (EIN, plan number, year); plan numbers that are not 1-3 digits by string. */
  private plans: NumTable | null = new NumTable();
  private oddPlans: Map<string, number> | null = new Map();
  /** Slot by ACK_ID number (ackNumber); a kept filing whose number another kept one has, by string. */
  private ackSlot: NumTable | null = new NumTable();
  private ackClash = new Map<string, number>();
  /** The ACK_ID number of each slot's filing in ackSlot (0 when not there: a clash, or not yet indexed). */
  private ackOf = new Float64Array(1024);
  /** Contract of a slot and FORM_ID → index in contractPremium / contractCarrier. */
  private contractOf = new NumTable();
  private oddContracts = new Map<string, number>();
  private nContracts = 0;
  private contractPremium = new Float64Array(1024);
  private contractCarrier = new Int32Array(1024);
  private orphans = new Set<string>();
  private fd: number;
  private spillPos = 0;
  private spillBuf: string[] = [];
  private spillBytes = 0;

  constructor() {
    // The spill file is unlinked at once: it lives as long as the descriptor, so nothing is
    // left behind however the process ends.
    const dir = mkdtempSync(join(tmpdir(), 'bintel-form5500-'));
    this.fd = openSync(join(dir, 'filings.jsonl'), 'w+');
    rmSync(dir, { recursive: true, force: true });
  }

  /** Releases the spill file. */
  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  private grow(): void {
    const n = this.n;
    for (const k of SLOT_COLUMNS) {
      (this as Record<typeof k, Column>)[k] = grown(this[k], n);
    }
    this.ackOf = grown(this.ackOf, n);
  }

  private spill(text: FilingText): [pos: number, len: number] {
    const line = JSON.stringify(text);
    const len = Buffer.byteLength(line);
    const pos = this.spillPos;
    this.spillPos += len;
    this.spillBuf.push(line);
    this.spillBytes += len;
    if (this.spillBytes > 1 << 20) this.flush();
    return [pos, len];
  }

  private flush(): void {
    if (!this.spillBuf.length) return;
    const b = Buffer.from(this.spillBuf.join(''));
    let at = 0;
    while (at < b.length) at += writeSync(this.fd, b, at);
    this.spillBuf = [];
    this.spillBytes = 0;
  }

  /** The later of the slot's filing and a new one: received later, else amended, else the higher ACK_ID. */
  private newerThanSlot(slot: number, f: Filing): boolean {
    const r = dayNum(f.received);
    if (r !== this.received[slot]) return r > this.received[slot];
    const amended = (this.flags[slot] & FLAG.amended) !== 0;
    if (amended !== f.amended) return f.amended;
    return f.ack > this.ackAt(slot);
  }

  private put(slot: number, f: Filing): void {
    let flags = (f.dataset === 'F_5500_SF' ? FLAG.short : 0) | (f.initial ? FLAG.initial : 0) | (f.amended ? FLAG.amended : 0) | (lateFiler(f) ? FLAG.late : 0);
    if (f.welfareCodes) flags |= FLAG.welfare;
    if (codesOf(f.pensionCodes).includes(CODE_401K)) flags |= FLAG.k401;
    if (f.funding.insurance) flags |= FLAG.insurance;
    if (f.funding.trust) flags |= FLAG.trust;
    if (f.funding.generalAssets) flags |= FLAG.generalAssets;
    let codes = 0;
    for (const code of codesOf(f.welfareCodes)) if (WELFARE_CODES[code]) codes |= BENEFIT_BIT.get(WELFARE_CODES[code]) as number;
    const [pos, len] = this.spill([f.ack, f.sponsorName, f.planName, f.city, f.state, f.zip, f.phone, f.adminName, f.adminPhone, f.adminSigners, f.sponsorSigners, f.planNum]);
    this.year[slot] = f.year;
    this.ein[slot] = Number(f.ein);
    this.received[slot] = dayNum(f.received);
    this.flags[slot] = flags;
    this.codeBenefits[slot] = codes;
    this.contractBenefits[slot] = 0;
    this.business[slot] = this.strings.id(f.businessCode);
    this.active[slot] = f.active ?? NaN;
    this.netAssets[slot] = f.netAssets ?? NaN;
    this.premium[slot] = 0;
    this.commissions[slot] = 0;
    this.maxPersons[slot] = -1;
    this.renewal[slot] = -1;
    this.textPos[slot] = pos;
    this.textLen[slot] = len;
    this.indexAck(f.ack, slot);
  }

  private indexAck(ack: string, slot: number): void {
    if (!this.ackSlot) return;
    const k = ackNumber(ack);
    const other = this.ackSlot.get(k);
    if (other !== undefined && other !== slot && this.ackOf[other] === k) this.ackClash.set(own(ack), slot);
    else {
      this.ackSlot.set(k, slot);
      this.ackOf[slot] = k;
    }
  }

  private unindexAck(slot: number): void {
    const ack = this.ackClash.size ? this.ackAt(slot) : '';
    if (this.ackClash.get(ack) === slot) this.ackClash.delete(ack);
    else if (this.ackSlot && this.ackOf[slot] && this.ackSlot.get(this.ackOf[slot]) === slot) this.ackSlot.set(this.ackOf[slot], 2147483647);
    this.ackOf[slot] = 0;
  }

  /** Adds one F_5500 or F_5500_SF row: DFE filings are counted and skipped; the later filing of a plan wins. */
  addFiling(dataset: Dataset, year: number, facts: Facts): void {
    this.counts.filings++;
    // A direct filing entity (line A(4): entity code 4, its kind M, C, P, E or G in the DFE code)
    // is an investment vehicle, not an employer: either mark skips it.
    if (facts.dfeCode || facts.entityCode === '4') {
      this.counts.dfe++;
      return;
    }
    const f = filingOf(dataset, year, facts);
    if (f.ein.length !== 9) {
      this.counts.noEin++;
      return;
    }
    if (!this.plans || !this.oddPlans) throw new Error('a filing after the schedules: filings must be read first');
    const numeric = /^\d{1,3}$/.test(f.planNum);
    const key = numeric ? (Number(f.ein) * 1000 + Number(f.planNum)) * 64 + (year % 64) : 0;
    const odd = numeric ? '' : `${f.ein}|${f.planNum}|${year}`;
    const had = numeric ? this.plans.get(key) : this.oddPlans.get(odd);
    if (had === undefined) {
      this.grow();
      const slot = this.n++;
      if (numeric) this.plans.set(key, slot);
      else this.oddPlans.set(odd, slot);
      this.put(slot, f);
      return;
    }
    this.counts.superseded++;
    if (!this.newerThanSlot(had, f)) return;
    this.unindexAck(had);
    this.put(had, f);
  }

  /** The slot of a kept filing by ACK_ID; schedules of other filings are counted as orphans. */
  private slotOf(ack: string): number | undefined {
    this.plans = null;
    this.oddPlans = null;
    let slot = this.ackClash.get(ack) ?? this.ackSlot?.get(ackNumber(ack));
    if (slot === 2147483647) slot = undefined;
    if (slot === undefined && !this.orphans.has(ack)) {
      this.orphans.add(own(ack));
      this.counts.orphanSchedules++;
    }
    return slot;
  }

  /** The contract of a slot and FORM_ID, as an index. */
  private contractIndex(slot: number, formId: string, add: boolean): number | undefined {
    const numeric = /^\d{1,6}$/.test(formId);
    const key = numeric ? slot * 1e6 + Number(formId) : `${slot}|${formId}`;
    let i = numeric ? this.contractOf.get(key as number) : this.oddContracts.get(key as string);
    if (i === undefined && add) {
      i = this.nContracts++;
      this.contractPremium = grown(this.contractPremium, i);
      this.contractCarrier = grown(this.contractCarrier, i);
      if (numeric) this.contractOf.set(key as number, i);
      else this.oddContracts.set(key as string, i);
    }
    return i;
  }

  /** Adds one Schedule A row to its filing. */
  addContract(f: Facts): void {
    this.counts.contracts++;
    const slot = this.slotOf(f.ack);
    if (slot === undefined) return;
    const persons = amount(f.personsCovered) ?? 0;
    const premium = contractPremium(f);
    const carrier = this.strings.id(f.carrierName);
    this.premium[slot] += premium;
    this.commissions[slot] += (amount(f.commissions) ?? 0) + (amount(f.fees) ?? 0);
    if (persons > this.maxPersons[slot]) {
      this.maxPersons[slot] = persons;
      this.renewal[slot] = this.strings.id(dateOf(f.policyFrom));
    }
    let bits = 0;
    for (const [col, b] of SCH_A_BENEFITS) if (yes(f[col] ?? '')) bits |= BENEFIT_BIT.get(b) as number;
    this.contractBenefits[slot] |= bits;
    if (f.carrierName) {
      const i = this.nCarriers++;
      this.carrierSlot = grown(this.carrierSlot, i);
      this.carrierName = grown(this.carrierName, i);
      this.carrierSlot[i] = slot;
      this.carrierName[i] = carrier;
    }
    const k = this.contractIndex(slot, f.formId, true) as number;
    this.contractPremium[k] = premium;
    this.contractCarrier[k] = carrier;
  }

  /** Adds one Part I row: its firm and office keys, for a kept filing. */
  addBrokerLine(f: Facts): void {
    this.counts.lines++;
    if (!f.name) {
      this.counts.unnamedLines++;
      return;
    }
    const slot = this.slotOf(f.ack);
    if (slot === undefined) return;
    const fk = firmKey(f.name);
    if (!fk) return;
    const foreign = !f.address1 && !!f.foreignAddress1;
    const a = foreign ? { address1: '', address2: '', city: '', state: '', zip: '' } : { address1: f.address1, address2: f.address2, city: f.city, state: f.state, zip: f.zip };
    const ok = officeKey(fk, a);
    const contract = this.contractIndex(slot, f.formId, false);
    const i = this.nLines++;
    if (i >= this.lineSlot.length) {
      for (const k of LINE_COLUMNS) {
        (this as Record<typeof k, Column>)[k] = grown(this[k], i);
      }
    }
    this.lineSlot[i] = slot;
    this.lineFirm[i] = this.strings.id(fk);
    this.lineOffice[i] = ok ? this.strings.id(ok) : -1;
    this.lineName[i] = this.strings.id(f.name);
    this.lineAddress[i] = ok ? this.strings.id(`${a.city.trim().toUpperCase()}|${a.state.trim().toUpperCase()}|${zip5(a.zip)}|${a.address1}`) : -1;
    this.linePaid[i] = (amount(f.commissions) ?? 0) + (amount(f.fees) ?? 0);
    this.linePremium[i] = contract === undefined ? 0 : this.contractPremium[contract];
    this.lineCarrier[i] = contract === undefined ? -1 : this.contractCarrier[contract];
  }

  /**
   * Reading is over: the lookup tables are dropped and the spill file is complete. (The columns
   * keep their capacity: copying them to their length doubled them until the next collection.)
   */
  endReading(): void {
    this.plans = null;
    this.oddPlans = null;
    this.ackSlot = null;
    this.ackClash.clear();
    this.ackOf = new Float64Array(0);
    this.contractOf = new NumTable(1);
    this.oddContracts.clear();
    this.contractPremium = new Float64Array(0);
    this.contractCarrier = new Int32Array(0);
    this.orphans.clear();
    this.flush();
  }

  /** The carrier names (string ids) of a slot's contracts, in file order. */
  carriersOf(slot: number): Int32Array {
    this.carrierIndex ??= bySlot(this.n, this.nCarriers, this.carrierSlot);
    const { order, start } = this.carrierIndex;
    const out = new Int32Array(start[slot + 1] - start[slot]);
    for (let k = start[slot]; k < start[slot + 1]; k++) out[k - start[slot]] = this.carrierName[order[k]];
    return out;
  }

  private text(slot: number): FilingText {
    if (this.textPos[slot] + this.textLen[slot] > this.spillPos - this.spillBytes) this.flush();
    const buf = Buffer.allocUnsafe(this.textLen[slot]);
    readSync(this.fd, buf, 0, buf.length, this.textPos[slot]);
    return JSON.parse(buf.toString('utf8')) as FilingText;
  }

  /** The ACK_ID of a slot's filing (read back from disk). */
  ackAt(slot: number): string {
    return this.text(slot)[0];
  }

  /** A kept filing as a Filing; names and addresses (read back from disk) only when `text`. */
  filing(slot: number, withText: boolean): KeptFiling {
    const t: FilingText = withText ? this.text(slot) : ['', '', '', '', '', '', '', '', '', [], [], ''];
    const flags = this.flags[slot];
    const active = this.active[slot];
    const net = this.netAssets[slot];
    return {
      slot, ack: t[0], dataset: flags & FLAG.short ? 'F_5500_SF' : 'F_5500', year: this.year[slot], ein: String(this.ein[slot]).padStart(9, '0'),
      planNum: t[11], planName: t[2], sponsorName: t[1], city: t[3], state: t[4], zip: t[5], phone: t[6],
      businessCode: this.strings.list[this.business[slot]], active: Number.isNaN(active) ? null : active,
      welfare: (flags & FLAG.welfare) !== 0, k401: (flags & FLAG.k401) !== 0,
      funding: { insurance: (flags & FLAG.insurance) !== 0, trust: (flags & FLAG.trust) !== 0, generalAssets: (flags & FLAG.generalAssets) !== 0 },
      netAssets: Number.isNaN(net) ? null : net, received: dayStr(this.received[slot]), initial: (flags & FLAG.initial) !== 0,
      amended: (flags & FLAG.amended) !== 0, late: (flags & FLAG.late) !== 0,
      adminName: t[7], adminPhone: t[8], adminSigners: t[9], sponsorSigners: t[10],
    };
  }
}

export function emptyCollected(): Collected {
  return new Collected();
}

/** Routes a row to its collector by dataset. */
export const ADD: Record<Dataset, (c: Collected, dataset: Dataset, year: number, f: Facts) => void> = {
  F_5500: (c, d, y, f) => c.addFiling(d, y, f),
  F_5500_SF: (c, d, y, f) => c.addFiling(d, y, f),
  F_SCH_A: (c, _d, _y, f) => c.addContract(f),
  F_SCH_A_PART1: (c, _d, _y, f) => c.addBrokerLine(f),
};
