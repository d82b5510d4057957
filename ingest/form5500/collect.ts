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
import { SCH_A_BENEFITS, SCH_A_PENSION, SCH_A_WELFARE_OTHER } from './datasets.ts';
import { STATE_CODES } from '../../mappings/reference.ts';
import type { Facts } from './read.ts';
import { resolveBrokerLines, type BrokerLine } from './broker-resolution.ts';
import { zip5 } from './resolve.ts';
import { lateFiler } from './signals.ts';
import { collectGarbage } from '../memory.ts';

export interface Filing {
  ack: string;
  dataset: Dataset;
  /** The plan year: the year of FORM_PLAN_YEAR_BEGIN_DATE (the file's year when the date is blank). */
  year: number;
  /** The year in the name of the file the filing came from (a year's file also holds late filings of earlier plan years). */
  fileYear: number;
  ein: string;
  planNum: string;
  planName: string;
  sponsorName: string;
  dbaName: string;
  /** Line A: 1 multiemployer, 2 single-employer, 3 multiple-employer plan ('' when not filed). */
  entityCode: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  businessCode: string;
  /** Line 5: total participants at the beginning of the plan year. */
  participants: number | null;
  /** Active participants (at year end, else at the beginning); null for a final filing's 0. */
  active: number | null;
  pensionCodes: string;
  welfareCodes: string;
  /** Line 9a, how the plan is funded. */
  funding: { insurance: boolean; trust: boolean; generalAssets: boolean };
  /** Line 9b, how benefits are provided. */
  arrangement: { insurance: boolean; trust: boolean; generalAssets: boolean };
  netAssets: number | null;
  received: string;
  planYearEnd: string;
  initial: boolean;
  final: boolean;
  amended: boolean;
  extension: boolean;
  specialExtension: boolean;
  adminName: string;
  adminPhone: string;
  adminSigners: string[];
  sponsorSigners: string[];
}

/** A growth percentage within what the mapping allows (-100 to 100,000), to two decimals; null stays null. */
export const clampGrowth = (pct: number | null): number | null => (pct === null ? null : Math.min(100000, Math.max(-100, Math.round(pct * 100) / 100)));

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
/** The date part of a date or timestamp ("2024-07-12T10:15:32-0500" → "2024-07-12"); '' when not a date (month 1-12, day 1-31). */
export const dateOf = (s: string) => (/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/.test(s) ? s.slice(0, 10) : '');

const STATES = new Set(STATE_CODES);
/** A USPS state code, upper case; '' for anything else (a typo would make the row fail validation, and its children with it). */
export const stateOf = (s: string) => {
  const v = (s ?? '').trim().toUpperCase();
  return STATES.has(v) ? v : '';
};

/** A plan year within what the DOL's forms allow (1975 to the file's year plus one); else the file's year. */
const planYear = (begin: string, fileYear: number) => {
  const y = begin ? Number(begin.slice(0, 4)) : 0;
  return y >= 1975 && y <= fileYear + 1 ? y : fileYear;
};

/** A head count as its column keeps it: -1 for unknown, and for counts past 2^31 - 1 (filing errors: no plan covers two billion people). */
const headcount = (n: number | null): number => (n === null || n > 0x7fffffff ? -1 : n);

/** A count or amount that cannot be negative: negative values are filing errors, read as unknown. */
const count = (s: string): number | null => {
  const n = amount(s);
  return n !== null && n >= 0 ? n : null;
};

/**
 * The sponsor's address: the location address (line 2a's street address) when it has a city,
 * else the mailing address, each taken whole (a mailing address is often a PO box or "c/o" the
 * administrator, in another city).
 */
function addressOf(f: Facts): Pick<Filing, 'street' | 'city' | 'state' | 'zip'> {
  const loc = !!f.locCity?.trim();
  return loc
    ? { street: f.locAddress1 ?? '', city: f.locCity, state: stateOf(f.locState ?? ''), zip: f.locZip ?? '' }
    : { street: f.mailAddress1, city: f.mailCity, state: stateOf(f.mailState), zip: f.mailZip };
}

export function filingOf(dataset: Dataset, year: number, f: Facts): Filing {
  const begin = dateOf(f.planYearBegin ?? '');
  const final = yes(f.final ?? '');
  const active = count(f.activeEoy) ?? count(f.activeBoy);
  return {
    ack: f.ack, dataset, year: planYear(begin, year), fileYear: year, ein: digits(f.ein), planNum: f.planNum, planName: f.planName,
    sponsorName: f.sponsorName, dbaName: f.dbaName ?? '', entityCode: f.entityCode ?? '', ...addressOf(f),
    phone: f.phone, businessCode: f.businessCode, participants: count(f.participantsBoy), active: final && active === 0 ? null : active,
    pensionCodes: f.pensionCodes, welfareCodes: f.welfareCodes,
    funding: { insurance: yes(f.fundingInsurance), trust: yes(f.fundingTrust), generalAssets: yes(f.fundingGeneralAssets) },
    arrangement: { insurance: yes(f.benefitInsurance ?? ''), trust: yes(f.benefitTrust ?? ''), generalAssets: yes(f.benefitGeneralAssets ?? '') },
    netAssets: amount(f.netAssetsEoy), received: dateOf(f.dateReceived), planYearEnd: dateOf(f.planYearEnd),
    initial: yes(f.initial), final, amended: yes(f.amended), extension: yes(f.extAutomatic) || yes(f.ext5558), specialExtension: yes(f.extSpecial),
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

/** Filing flags (9a funding: insurance, trust, generalAssets; 9b arrangement: the `benefit*` ones). */
export const FLAG = {
  short: 1, initial: 2, amended: 4, late: 8, welfare: 16, k401: 32, insurance: 64, trust: 128, generalAssets: 256, pension: 512, final: 1024,
  multiemployer: 2048, multipleEmployer: 4096, benefitInsurance: 8192, benefitTrust: 16384, benefitGeneralAssets: 32768,
  welfareContract: 65536, pensionContract: 131072,
} as const;
/** Flags a later filing of a plan year keeps from the one it replaces: an amendment of a late filing is late, of an initial filing initial. */
const STICKY = FLAG.late | FLAG.initial;

/** Separates the fields of a Part I line's text (never in a CSV field the DOL writes). */
const RAW_SEP = '\u0001';

/** Medical benefit bits (Schedule A health, HMO, PPO, indemnity indicators and welfare code 4A). */
const MEDICAL_BIT = BENEFIT_BIT.get('Medical') as number;

/** Schedule A line of business of a contract: Part III (welfare) or Part II (pension). */
export const LINE = { welfare: 1, retirement: 2 } as const;

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
  private sealed = false;
  readonly list: string[] = [];
  id(s: string): number {
    if (this.sealed) throw new Error('strings sealed: no string is added after reading ends');
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      const o = own(s);
      this.list.push(o);
      this.ids.set(o, i);
    }
    return i;
  }
  /** Forgets strings no id will be asked for again (their ids read as ''). */
  drop(ids: Iterable<number>): void {
    for (const i of ids) {
      if (this.ids.get(this.list[i]) === i) this.ids.delete(this.list[i]);
      this.list[i] = '';
    }
  }
  /** No string is added any more: the lookup by string goes (the list stays). */
  seal(): void {
    this.ids = new Map();
    this.sealed = true;
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

type Column = Float64Array | Int32Array | Int16Array | Uint16Array | Int8Array;

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
  // A quarter more each time: at most a fifth of a column is room to grow (the copy is cheap).
  const b = new (a.constructor as new (n: number) => T)(Math.max(1024, Math.ceil(a.length * 1.25)));
  b.set(a);
  return b;
};

/** What a built filing holds besides its columns: the text spilled to disk. */
type FilingText = [ack: string, sponsorName: string, planName: string, city: string, state: string, zip: string, phone: string, adminName: string, adminPhone: string, adminSigners: string[], sponsorSigners: string[], planNum: string, dbaName: string, street: string];

/**
 * A kept filing, rebuilt from the columns (and the spilled text when asked). The characteristic
 * codes, the plan year's end and the extension indicators are not kept: what the outputs need
 * of them is (`welfare`, `k401`, `late`).
 */
export interface KeptFiling extends Omit<Filing, 'pensionCodes' | 'welfareCodes' | 'planYearEnd' | 'extension' | 'specialExtension' | 'arrangement'> {
  slot: number;
  /** The DOL file the filing was read from (its name). */
  file: string;
  /** A welfare plan (welfare characteristic codes filed). */
  welfare: boolean;
  /** Pension code 2J (a 401(k) feature). */
  k401: boolean;
  late: boolean;
}

export interface Counts {
  filings: number; dfe: number; superseded: number; noEin: number; contracts: number; pensionContracts: number; lines: number; unnamedLines: number;
  orphanSchedules: number; duplicateScheduleRows: number;
  /** Part I lines naming no one (NONE, N/A...), and lines naming an individual agent. */
  placeholderLines: number; agentLines: number;
}

const SLOT_COLUMNS = [
  'year', 'fileYear', 'file', 'ein', 'plan', 'received', 'flags', 'codeBenefits', 'contractBenefits', 'business', 'participants', 'active', 'netAssets',
  'premium', 'commissions', 'maxPersons', 'renewal', 'renewalRank', 'medicalNaic', 'medicalCarrier', 'textPos', 'textLen',
] as const;
const LINE_COLUMNS = ['lineSlot', 'lineFirm', 'lineOffice', 'lineAgent', 'lineName', 'lineAddress', 'lineRaw', 'linePaid', 'linePremium', 'lineCarrier', 'lineKind', 'lineCode'] as const;

/**
 * The collected state. Filings occupy slots in the order their plan is first seen (a later
 * filing of the plan takes over the slot); Part I lines are kept only for kept filings.
 */
export class Collected {
  /** Kept filings (slots). */
  n = 0;
  /** Plan year, and the year of the file the filing came in. */
  year = new Int16Array(1024);
  fileYear = new Int16Array(1024);
  /** The file's name (string id). */
  file = new Int32Array(1024);
  ein = new Int32Array(1024);
  /** Plan number (string id). */
  plan = new Int32Array(1024);
  received = new Int32Array(1024);
  flags = new Int32Array(1024);
  /** Benefit bits from the welfare codes, and from Schedule A. */
  codeBenefits = new Uint16Array(1024);
  contractBenefits = new Uint16Array(1024);
  business = new Int32Array(1024);
  /** Line 5 participants at the beginning of the year, and active participants (-1: unknown). */
  participants = new Int32Array(1024);
  active = new Int32Array(1024);
  netAssets = new Float64Array(1024);
  /** Premiums and broker commissions and fees of the filing's welfare contracts. */
  premium = new Float64Array(1024);
  commissions = new Float64Array(1024);
  /** Persons covered by the filing's biggest welfare contract (-1: none). */
  maxPersons = new Int32Array(1024);
  /**
   * The renewal contract: the medical contract with the largest premium, else the welfare
   * contract with the largest premium. Its policy start (string id, -1: none), its rank
   * (medical first, then premium), and for a medical one its carrier's NAIC code and name.
   */
  renewal = new Int32Array(1024);
  renewalRank = new Float64Array(1024);
  medicalNaic = new Int32Array(1024);
  medicalCarrier = new Int32Array(1024);
  textPos = new Float64Array(1024);
  textLen = new Int32Array(1024);
  /** Carriers (non-empty names) of contracts: slot and string id, in file order. */
  private nCarriers = 0;
  private carrierSlot = new Int32Array(1024);
  private carrierName = new Int32Array(1024);
  private carrierIndex: { order: Int32Array; start: Int32Array } | null = null;
  /** Interned strings: business codes, dates, carriers, firm and office keys, broker names, addresses. */
  readonly strings = new Interner();
  counts: Counts = {
    filings: 0, dfe: 0, superseded: 0, noEin: 0, contracts: 0, pensionContracts: 0, lines: 0, unnamedLines: 0, orphanSchedules: 0, duplicateScheduleRows: 0,
    placeholderLines: 0, agentLines: 0,
  };

  /**
   * Part I lines: slot, firm key, office key (-1: none), name as filed, address
   * (city|state|zip5|street), paid, contract premium and carrier, line of business (LINE) and
   * INS_BROKER_CODE (-1: none).
   */
  nLines = 0;
  lineSlot = new Int32Array(1024);
  /** Firm and office keys (string ids; -1: none), set when reading ends (broker-resolution.ts over the distinct lines). */
  lineFirm = new Int32Array(1024);
  lineOffice = new Int32Array(1024);
  /** An individual agent's name (string id), else -1. */
  lineAgent = new Int32Array(1024);
  lineName = new Int32Array(1024);
  lineAddress = new Int32Array(1024);
  /** The line as filed (name and US address, string id): what resolution reads. */
  lineRaw = new Int32Array(1024);
  linePaid = new Float64Array(1024);
  linePremium = new Float64Array(1024);
  lineCarrier = new Int32Array(1024);
  lineKind = new Int8Array(1024);
  lineCode = new Int8Array(1024);
  /** Part I rows seen (slot, FORM_ID, ROW_ORDER), to read each once. */
  private seenLines: NumTable | null = new NumTable();
  private oddSeenLines = new Set<string>();

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
  private contractKind = new Int32Array(1024);
  private orphans = new Set<string>();
  private fd: number;
  private adopted: { close: () => void }[] = [];
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

  /** Releases the spill file, and the files adopted (the built documents spilled to disk). */
  close(): void {
    for (const f of this.adopted.splice(0)) f.close();
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  /** A file released with this state's own (close). */
  adopt<T extends { close: () => void }>(file: T): T {
    this.adopted.push(file);
    return file;
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

  private put(slot: number, f: Filing, file: string): void {
    const kept = this.textLen[slot] > 0 ? this.flags[slot] & STICKY : 0;
    let flags = kept | (f.dataset === 'F_5500_SF' ? FLAG.short : 0) | (f.initial ? FLAG.initial : 0) | (f.amended ? FLAG.amended : 0) | (lateFiler(f) ? FLAG.late : 0);
    if (f.welfareCodes) flags |= FLAG.welfare;
    if (f.pensionCodes) flags |= FLAG.pension;
    if (codesOf(f.pensionCodes).includes(CODE_401K)) flags |= FLAG.k401;
    if (f.final) flags |= FLAG.final;
    if (f.entityCode === '1') flags |= FLAG.multiemployer;
    if (f.entityCode === '3') flags |= FLAG.multipleEmployer;
    if (f.funding.insurance) flags |= FLAG.insurance;
    if (f.funding.trust) flags |= FLAG.trust;
    if (f.funding.generalAssets) flags |= FLAG.generalAssets;
    if (f.arrangement.insurance) flags |= FLAG.benefitInsurance;
    if (f.arrangement.trust) flags |= FLAG.benefitTrust;
    if (f.arrangement.generalAssets) flags |= FLAG.benefitGeneralAssets;
    let codes = 0;
    for (const code of codesOf(f.welfareCodes)) if (WELFARE_CODES[code]) codes |= BENEFIT_BIT.get(WELFARE_CODES[code]) as number;
    const [pos, len] = this.spill([f.ack, f.sponsorName, f.planName, f.city, f.state, f.zip, f.phone, f.adminName, f.adminPhone, f.adminSigners, f.sponsorSigners, f.planNum, f.dbaName, f.street]);
    this.year[slot] = f.year;
    this.fileYear[slot] = f.fileYear;
    this.file[slot] = this.strings.id(file.split(/[\\/!]/).pop() ?? file);
    this.ein[slot] = Number(f.ein);
    this.plan[slot] = this.strings.id(f.planNum);
    this.received[slot] = dayNum(f.received);
    this.flags[slot] = flags;
    this.codeBenefits[slot] = codes;
    this.contractBenefits[slot] = 0;
    this.business[slot] = this.strings.id(f.businessCode);
    this.participants[slot] = headcount(f.participants);
    this.active[slot] = headcount(f.active);
    this.netAssets[slot] = f.netAssets ?? NaN;
    this.premium[slot] = 0;
    this.commissions[slot] = 0;
    this.maxPersons[slot] = -1;
    this.renewal[slot] = -1;
    this.renewalRank[slot] = -1;
    this.medicalNaic[slot] = -1;
    this.medicalCarrier[slot] = -1;
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

  /**
   * Adds one F_5500 or F_5500_SF row (from `file`): DFE filings are counted and skipped; of a
   * plan's filings for one plan year the later wins (an amendment keeps the original's late and
   * initial marks).
   */
  addFiling(dataset: Dataset, year: number, facts: Facts, file = ''): void {
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
    const key = numeric ? (Number(f.ein) * 1000 + Number(f.planNum)) * 256 + (f.year % 256) : 0;
    const odd = numeric ? '' : `${f.ein}|${f.planNum}|${f.year}`;
    const had = numeric ? this.plans.get(key) : this.oddPlans.get(odd);
    if (had === undefined) {
      this.grow();
      const slot = this.n++;
      if (numeric) this.plans.set(key, slot);
      else this.oddPlans.set(odd, slot);
      this.textLen[slot] = 0;
      this.put(slot, f, file);
      return;
    }
    this.counts.superseded++;
    if (!this.newerThanSlot(had, f)) {
      if (lateFiler(f)) this.flags[had] |= FLAG.late;
      if (f.initial) this.flags[had] |= FLAG.initial;
      return;
    }
    this.unindexAck(had);
    this.put(had, f, file);
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

  /** The contract of a slot and FORM_ID, as an index (`add`: a new one; undefined when it exists). */
  private contractIndex(slot: number, formId: string, add: boolean): number | undefined {
    const numeric = /^\d{1,6}$/.test(formId);
    const key = numeric ? slot * 1e6 + Number(formId) : `${slot}|${formId}`;
    const i = numeric ? this.contractOf.get(key as number) : this.oddContracts.get(key as string);
    if (!add) return i;
    if (i !== undefined) return undefined;
    const n = this.nContracts++;
    this.contractPremium = grown(this.contractPremium, n);
    this.contractCarrier = grown(this.contractCarrier, n);
    this.contractKind = grown(this.contractKind, n);
    if (numeric) this.contractOf.set(key as number, n);
    else this.oddContracts.set(key as string, n);
    return n;
  }

  /**
   * A Schedule A contract's line of business: welfare (Part III: a WLFR_ indicator or amount) or
   * pension (Part II: a PENSION_ amount or an allocated or unallocated contract box). When it
   * shows both or neither, the filing's characteristic codes decide (pension codes alone:
   * pension); else welfare.
   */
  private kindOf(slot: number, f: Facts, premium: number, benefitBits: number): number {
    let welfare = premium > 0 || benefitBits !== 0;
    for (const col of SCH_A_WELFARE_OTHER) if (!welfare && (yes(f[col] ?? '') || (amount(f[col] ?? '') ?? 0) > 0)) welfare = true;
    if (!welfare && (amount(f.acquisitionCost ?? '') ?? 0) > 0) welfare = true;
    const pension = SCH_A_PENSION.some((col) => yes(f[col] ?? '') || (amount(f[col] ?? '') ?? 0) !== 0);
    if (welfare !== pension) return welfare ? LINE.welfare : LINE.retirement;
    return this.planKind(slot);
  }

  /** A filing's line of business by its characteristic codes (pension codes alone: retirement). */
  private planKind(slot: number): number {
    const flags = this.flags[slot];
    return flags & FLAG.pension && !(flags & FLAG.welfare) ? LINE.retirement : LINE.welfare;
  }

  /**
   * Adds one Schedule A row to its filing (a second row of one filing and FORM_ID is counted and
   * skipped). Only welfare contracts add premiums, commissions, carriers, benefits and the
   * renewal: a pension plan's annuity contract is not the sponsor's health and welfare picture.
   */
  addContract(f: Facts): void {
    this.counts.contracts++;
    const slot = this.slotOf(f.ack);
    if (slot === undefined) return;
    const k = this.contractIndex(slot, f.formId, true);
    if (k === undefined) {
      this.counts.duplicateScheduleRows++;
      return;
    }
    const premium = contractPremium(f);
    let bits = 0;
    for (const [col, b] of SCH_A_BENEFITS) if (yes(f[col] ?? '')) bits |= BENEFIT_BIT.get(b) as number;
    const kind = this.kindOf(slot, f, premium, bits);
    const carrier = this.strings.id(f.carrierName);
    this.contractPremium[k] = premium;
    this.contractCarrier[k] = carrier;
    this.contractKind[k] = kind;
    if (kind === LINE.retirement) {
      this.counts.pensionContracts++;
      this.flags[slot] |= FLAG.pensionContract;
      return;
    }
    this.flags[slot] |= FLAG.welfareContract;
    const persons = count(f.personsCovered) ?? 0;
    this.premium[slot] += premium;
    this.commissions[slot] += (amount(f.commissions) ?? 0) + (amount(f.fees) ?? 0);
    if (headcount(persons) > this.maxPersons[slot]) this.maxPersons[slot] = headcount(persons);
    this.contractBenefits[slot] |= bits;
    // Medical first, then the larger premium, then more persons covered.
    const medical = (bits & MEDICAL_BIT) !== 0 && !(bits & STOP_LOSS_BIT);
    const rank = (medical ? 2 ** 50 : 0) + premium * 1024 + Math.min(persons, 1023);
    if (rank > this.renewalRank[slot]) {
      this.renewalRank[slot] = rank;
      this.renewal[slot] = this.strings.id(dateOf(f.policyFrom));
      this.medicalNaic[slot] = medical && f.carrierNaic ? this.strings.id(f.carrierNaic.replace(/\D/g, '')) : -1;
      this.medicalCarrier[slot] = medical && f.carrierName ? carrier : -1;
    }
    if (f.carrierName) {
      const i = this.nCarriers++;
      this.carrierSlot = grown(this.carrierSlot, i);
      this.carrierName = grown(this.carrierName, i);
      this.carrierSlot[i] = slot;
      this.carrierName[i] = carrier;
    }
  }

  /** True the first time a Part I row (slot, FORM_ID, ROW_ORDER) is seen. */
  private firstSight(slot: number, formId: string, rowOrder: string): boolean {
    if (!this.seenLines) return true;
    if (/^\d{1,3}$/.test(formId) && /^\d{1,3}$/.test(rowOrder)) {
      const key = slot * 1e6 + Number(formId) * 1000 + Number(rowOrder);
      if (this.seenLines.get(key) !== undefined) return false;
      this.seenLines.set(key, 1);
      return true;
    }
    const key = `${slot}|${formId}|${rowOrder}`;
    if (this.oddSeenLines.has(key)) return false;
    this.oddSeenLines.add(key);
    return true;
  }

  /** Adds one Part I row: its firm and office keys, line of business and broker code, for a kept filing. */
  addBrokerLine(f: Facts): void {
    this.counts.lines++;
    if (!f.name) {
      this.counts.unnamedLines++;
      return;
    }
    const slot = this.slotOf(f.ack);
    if (slot === undefined) return;
    if (f.rowOrder && !this.firstSight(slot, f.formId, f.rowOrder)) {
      this.counts.duplicateScheduleRows++;
      return;
    }
    const foreign = !f.address1 && !!f.foreignAddress1;
    const a = foreign ? { address1: '', address2: '', city: '', state: '', zip: '' } : { address1: f.address1, address2: f.address2, city: f.city, state: stateOf(f.state), zip: f.zip };
    const contract = this.contractIndex(slot, f.formId, false);
    const i = this.nLines++;
    if (i >= this.lineSlot.length) {
      for (const k of LINE_COLUMNS) {
        (this as Record<typeof k, Column>)[k] = grown(this[k], i);
      }
    }
    this.lineSlot[i] = slot;
    this.lineFirm[i] = -1;
    this.lineOffice[i] = -1;
    this.lineAgent[i] = -1;
    // Only the line as filed is interned while reading: its name and address keys are taken from it once resolved (resolveLines).
    this.lineName[i] = -1;
    this.lineAddress[i] = -1;
    this.lineRaw[i] = this.strings.id([f.name, a.address1, a.address2, a.city, a.state, a.zip].join(RAW_SEP));
    this.linePaid[i] = (amount(f.commissions) ?? 0) + (amount(f.fees) ?? 0);
    this.linePremium[i] = contract === undefined ? 0 : this.contractPremium[contract];
    this.lineCarrier[i] = contract === undefined ? -1 : this.contractCarrier[contract];
    this.lineKind[i] = contract === undefined ? this.planKind(slot) : this.contractKind[contract];
    this.lineCode[i] = /^\d$/.test(f.code ?? '') ? Number(f.code) : -1;
  }

  /**
   * Reading is over: the lookup tables are dropped, the broker lines resolved, the spill file is
   * complete and the columns are cut to their length. `every1000` (the import's heap guard) is
   * called every 1,000 steps of the resolution.
   */
  endReading(every1000: () => void = () => {}): void {
    this.plans = null;
    this.oddPlans = null;
    this.ackSlot = null;
    this.ackClash.clear();
    this.ackOf = new Float64Array(0);
    this.contractOf = new NumTable(1);
    this.oddContracts.clear();
    this.contractPremium = new Float64Array(0);
    this.contractCarrier = new Int32Array(0);
    this.contractKind = new Int32Array(0);
    this.seenLines = null;
    this.oddSeenLines.clear();
    // The columns cut to their length before resolving (up to a fifth of them was room to grow, and the
    // tables above are gone); the garbage collector is asked at once to free the longer ones (else both
    // are held until it runs).
    // A collection every 32 MB let go keeps the old and new columns from being held together.
    let freed = 0;
    const cut = <T extends Column>(a: T, n: number): T => {
      freed += a.byteLength;
      if (freed > 32 << 20) {
        collectGarbage();
        freed = a.byteLength;
      }
      return a.slice(0, n) as T;
    };
    for (const k of SLOT_COLUMNS) (this as Record<typeof k, Column>)[k] = cut(this[k], this.n);
    for (const k of LINE_COLUMNS) (this as Record<typeof k, Column>)[k] = cut(this[k], this.nLines);
    this.carrierSlot = cut(this.carrierSlot, this.nCarriers);
    this.carrierName = cut(this.carrierName, this.nCarriers);
    collectGarbage();
    this.resolveLines(every1000);
    this.strings.seal();
    this.orphans.clear();
    this.flush();
  }

  /**
   * Firms, offices and agents of the Part I lines, resolved over the distinct lines at once
   * (name and geography evidence: broker-resolution.ts). A placeholder (NONE, N/A) has no firm;
   * an agent counts for the firm whose office shares the agent's address, else for an agency
   * of its own (the agent's name in the agent's city), and becomes a contact at that office.
   */
  private resolveLines(every1000: () => void): void {
    // The distinct lines by their string id (lineRaw), numbered in order of first sight.
    const distinctOf = new Int32Array(this.strings.list.length).fill(-1);
    const raws: number[] = [];
    for (let i = 0; i < this.nLines; i++) if (distinctOf[this.lineRaw[i]] < 0) distinctOf[this.lineRaw[i]] = raws.push(this.lineRaw[i]) - 1;
    // Resolution reads each line through here (about three times): the heap guard runs every 1,000 reads,
    // or the garbage of analyzing the lines piled up to hundreds of MB before V8 collected it.
    let reads = 0;
    const lineAt = (k: number): BrokerLine => {
      if (++reads % 1000 === 0) every1000();
      const [name, address1, address2, city, state, zip] = this.strings.list[raws[k]].split(RAW_SEP);
      return { name, address1, address2, city, state, zip };
    };
    const firm = new Int32Array(raws.length);
    const office = new Int32Array(raws.length);
    const agent = new Int32Array(raws.length);
    resolveBrokerLines(raws.length, lineAt, (k, r, l) => {
      firm[k] = office[k] = agent[k] = -1;
      if (r.kind === 'placeholder' || (!r.firm && r.kind === 'firm')) return;
      let fk = r.firm;
      let ok = r.office;
      if (r.kind === 'agent') {
        agent[k] = this.strings.id(l.name);
        if (!fk) {
          // An independent agent: an agency of its own in its city (never one firm nationwide for a common name).
          fk = `agent:${l.name.trim().toUpperCase().replace(/\s+/g, ' ')}|${l.state.trim().toUpperCase()}|${l.city.trim().toUpperCase()}`;
          ok = ok === null ? null : `${fk}${ok}`;
        }
      }
      firm[k] = this.strings.id(fk);
      office[k] = ok === null ? -1 : this.strings.id(ok);
    });
    // The name and address keys of each distinct line, as it goes: the line's text is read by nothing else
    // (it holds RAW_SEP: no other string is one of them), so no more than one of them is held at a time.
    const name = new Int32Array(raws.length);
    const address = new Int32Array(raws.length);
    for (let k = 0; k < raws.length; k++) {
      const l = lineAt(k);
      name[k] = this.strings.id(l.name);
      address[k] = this.strings.id(`${l.city.trim().toUpperCase()}|${l.state.trim().toUpperCase()}|${zip5(l.zip)}|${l.address1}`);
      this.strings.drop([raws[k]]);
    }
    for (let i = 0; i < this.nLines; i++) {
      const k = distinctOf[this.lineRaw[i]];
      this.lineName[i] = name[k];
      this.lineAddress[i] = address[k];
      this.lineFirm[i] = firm[k];
      this.lineOffice[i] = office[k];
      this.lineAgent[i] = agent[k];
      if (firm[k] < 0) this.counts.placeholderLines++;
      if (agent[k] >= 0) this.counts.agentLines++;
    }
    this.lineRaw = new Int32Array(0);
  }

  /**
   * The broker firms, offices and agents are built: what only they read goes (the lines' names,
   * addresses, agents, premiums, carriers and codes, and the strings no other column names).
   */
  releaseBrokerDetail(): void {
    const kept = new Uint8Array(this.strings.list.length);
    for (const col of [this.carrierName, this.business, this.file, this.plan, this.renewal, this.medicalNaic, this.medicalCarrier, this.lineFirm, this.lineOffice]) {
      for (let i = 0; i < col.length; i++) if (col[i] >= 0) kept[col[i]] = 1;
    }
    const gone = new Set<number>();
    for (const col of [this.lineName, this.lineAddress, this.lineAgent]) for (let i = 0; i < col.length; i++) if (col[i] >= 0 && !kept[col[i]]) gone.add(col[i]);
    this.strings.drop(gone);
    this.lineName = new Int32Array(0);
    this.lineAddress = new Int32Array(0);
    this.lineAgent = new Int32Array(0);
    this.linePremium = new Float64Array(0);
    this.lineCarrier = new Int32Array(0);
    this.lineCode = new Int8Array(0);
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
    const t: FilingText = withText ? this.text(slot) : ['', '', '', '', '', '', '', '', '', [], [], '', '', ''];
    const flags = this.flags[slot];
    const active = this.active[slot];
    const net = this.netAssets[slot];
    return {
      slot, ack: t[0], dataset: flags & FLAG.short ? 'F_5500_SF' : 'F_5500', year: this.year[slot], fileYear: this.fileYear[slot], file: this.strings.list[this.file[slot]],
      ein: String(this.ein[slot]).padStart(9, '0'), planNum: t[11], planName: t[2], sponsorName: t[1], dbaName: t[12] ?? '', street: t[13] ?? '',
      entityCode: flags & FLAG.multiemployer ? '1' : flags & FLAG.multipleEmployer ? '3' : '2', city: t[3], state: t[4], zip: t[5], phone: t[6],
      businessCode: this.strings.list[this.business[slot]], participants: this.participants[slot] < 0 ? null : this.participants[slot],
      active: active < 0 ? null : active, final: (flags & FLAG.final) !== 0,
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
export const ADD: Record<Dataset, (c: Collected, dataset: Dataset, year: number, f: Facts, file?: string) => void> = {
  F_5500: (c, d, y, f, file) => c.addFiling(d, y, f, file),
  F_5500_SF: (c, d, y, f, file) => c.addFiling(d, y, f, file),
  F_SCH_A: (c, _d, _y, f) => c.addContract(f),
  F_SCH_A_PART1: (c, _d, _y, f) => c.addBrokerLine(f),
};
