/**
 * Broker firms and offices from the Part I lines of kept filings (pure): lines are grouped into
 * offices (same firm key at the same address key) and firms (same firm key); a line with no
 * address counts for its firm only. Figures come from each client plan's latest filing (not
 * the newest, partial, file year), growth from the same plans' year before when that year was
 * imported too. Each firm and office carries its lines of business (welfare contracts of
 * Schedule A Part III, retirement ones of Part II) and the broker codes filed.
 */
import { CITIES, EMPLOYEE_BANDS, bandOf } from '../../mappings/reference.ts';
import { industryOf } from './industry.ts';
import type { Doc } from '../../mappings/types.ts';
import { LINE, bySlot, clampGrowth, dayStr, type Collected } from './collect.ts';
import { BROKER_CODES } from './datasets.ts';
import { ROLE } from './plans.ts';
import { foldText } from '../../mappings/normalize.ts';
import { splitPersonName, stableId } from './resolve.ts';
import { DocSpill } from './spill.ts';

interface Figures {
  paid: number;
  premiums: number;
  clients: Set<number>;
  /** YYYYMMDD. */
  received: number;
}

interface Group {
  key: string;
  /** Name as filed (string id) → lines. */
  names: Map<number, number>;
  /** On the clients' latest filings; on those of them whose year before was imported; on that year before. */
  latest: Figures;
  comparable: number;
  prior: number | null;
  /** Lines of business (bits 1 << LINE) and broker codes (bits 1 << INS_BROKER_CODE) seen: numbers, not sets (a full year has 130,000 groups). */
  lines: number;
  codes: number;
  /** An office's carriers, industries and employee bands in the order first seen (null for a firm: its row has none). */
  carriers: Set<string> | null;
  industries: Set<string> | null;
  bands: Set<string> | null;
  source: string;
}

interface OfficeGroup extends Group {
  firm: string;
  address: { city: string; state: string; zip: string; street: string };
}

/** What the companies need from the broker side, per sponsor and plan year. */
export interface SponsorBrokers {
  officeIds: Set<string>;
  /** Paid per office id and per firm key (welfare contracts only). */
  byOffice: Map<string, number>;
  byFirm: Map<string, number>;
}

export interface BrokerSide {
  /** Firm and office rows, on disk until the load takes them. */
  firms: DocSpill;
  offices: DocSpill;
  /** Individual agents named on Part I lines: broker contacts (role Agent) at their office. */
  agents: DocSpill;
  /** What the companies need from the broker side, for a sponsor's filings of one plan year. */
  sponsorBrokers: (slots: readonly number[]) => SponsorBrokers | undefined;
  counts: { firmOnlyLines: number; agents: number };
}

const DMA = new Map(CITIES.map(([city, state, dma]) => [`${city.toUpperCase()}|${state}`, dma]));
export const dmaOf = (city: string, state: string) => DMA.get(`${city.trim().toUpperCase()}|${state.trim().toUpperCase()}`) ?? null;
export { industryOf };

function newGroup(key: string, source: string, office: boolean): Group {
  return {
    key, names: new Map(), latest: { paid: 0, premiums: 0, clients: new Set(), received: 0 }, comparable: 0, prior: null, lines: 0, codes: 0,
    carriers: office ? new Set() : null, industries: office ? new Set() : null, bands: office ? new Set() : null, source,
  };
}

/** The values of the bits of a mask through `name`, once each. */
const named = (mask: number, name: (bit: number) => string): string[] => {
  const out = new Set<string>();
  for (let b = 0; b < 31; b++) if (mask & (1 << b)) out.add(name(b));
  return [...out];
};
const linesOf = (mask: number) => named(mask, (k) => LINE_NAME[k]).sort().reverse();
const codesOf = (mask: number) => named(mask, (k) => BROKER_CODES[String(k)]).sort();

const LINE_NAME: Readonly<Record<number, string>> = { [LINE.welfare]: 'welfare', [LINE.retirement]: 'retirement' };

/** The most frequent spelling, the longest on a tie ("1ST GLOBAL CAPITAL CORP" over "1ST GLOBAL CAPITAL"). */
function displayName(names: Map<number, number>, strings: readonly string[]): string {
  let best = '';
  let n = -1;
  for (const [id, c] of names) {
    const name = strings[id];
    if (c > n || (c === n && name.length > best.length)) [best, n] = [name, c];
  }
  return best;
}

/** Adds Part I line `i` (on a client's latest filing) of the collected state to a firm or office. */
function record(g: Group, c: Collected, i: number, comparable: boolean): void {
  const slot = c.lineSlot[i];
  // A firm's name is its lines' most frequent spelling; an agent's own name only names an agency with no other line.
  g.names.set(c.lineName[i], (g.names.get(c.lineName[i]) ?? 0) + (c.lineAgent[i] < 0 ? 1_000_000 : 1));
  const y = g.latest;
  y.paid += c.linePaid[i];
  y.premiums += c.linePremium[i];
  y.clients.add(c.ein[slot]);
  if (comparable) g.comparable += c.linePaid[i];
  if (c.received[slot] > y.received) y.received = c.received[slot];
  g.lines |= 1 << c.lineKind[i];
  if (c.lineCode[i] >= 0) g.codes |= 1 << c.lineCode[i];
  if (!g.carriers || !g.industries || !g.bands) return;
  const carrier = c.lineCarrier[i] < 0 ? '' : c.strings.list[c.lineCarrier[i]];
  if (carrier) g.carriers.add(carrier);
  const industry = industryOf(c.strings.list[c.business[slot]]);
  if (industry) g.industries.add(industry);
  const active = c.active[slot];
  const band = bandOf(EMPLOYEE_BANDS, active < 0 ? null : active);
  if (band) g.bands.add(band);
}

/**
 * The clients' latest figures, and growth of paid amounts: the clients' latest filings whose
 * year before was imported against those same plans' year before (a plan that moved to
 * another firm counts as a loss, a new client as a gain; plans whose year before lies outside
 * the import count in neither).
 */
function figures(g: Group): { latest: Figures; growth: number | null } {
  return { latest: g.latest, growth: clampGrowth(g.prior !== null && g.prior > 0 ? ((g.comparable - g.prior) / g.prior) * 100 : null) };
}

/** A paid or premium total as the mapping bounds it: chargebacks larger than the commissions leave 0, not a negative figure. */
const nonNegative = (n: number) => Math.max(0, Math.round(n));

const titleCity = (s: string) => s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

/** National: offices in 10+ states; regional: 2+ states or 5+ offices; else local. */
function brokerageClass(offices: OfficeGroup[]): string {
  const states = new Set(offices.map((o) => o.address.state)).size;
  return states >= 10 ? 'national player' : states >= 2 || offices.length >= 5 ? 'regional player' : 'local broker';
}

/** `every1000` (the import's heap guard) is called every 1,000 lines and rows. */
export function buildBrokers(c: Collected, role: Uint8Array, every1000: () => void = () => {}): BrokerSide {
  const { order, start } = bySlot(c.n, c.nLines, c.lineSlot);
  const { firmDocs, officeDocs, firmOnlyLines } = brokerDocs(c, order, role, every1000);
  const agents = agentDocs(c, order, role, every1000);
  c.releaseBrokerDetail();
  return { firms: firmDocs, offices: officeDocs, agents, sponsorBrokers: sponsorBrokersOf(c, order, start), counts: { firmOnlyLines, agents: agents.count } };
}

/** One broker contact per agent name and office, from the lines of the clients' latest filings. */
function agentDocs(c: Collected, order: Int32Array, role: Uint8Array, every1000: () => void): DocSpill {
  const out = new Map<string, Doc>();
  const strings = c.strings.list;
  for (let k = 0; k < order.length; k++) {
    if (k % 1000 === 999) every1000();
    const i = order[k];
    const slot = c.lineSlot[i];
    if (c.lineAgent[i] < 0 || c.lineOffice[i] < 0 || !(role[slot] & ROLE.current)) continue;
    const name = splitPersonName(strings[c.lineAgent[i]]);
    if (!name) continue;
    const office = strings[c.lineOffice[i]];
    const key = `${office}|${foldText(name.full)}`;
    const received = dayStr(c.received[slot]) || null;
    const had = out.get(key);
    if (had) {
      if (received && (!had.last_updated_at || received > String(had.last_updated_at))) had.last_updated_at = received;
      continue;
    }
    out.set(key, {
      id: stableId('contact', `agent|${key}`), first_name: name.first, last_name: name.last, full_name: name.full, lead_type: 'broker',
      broker_office_id: stableId('office', office), form5500_role: 'Agent', last_updated_at: received,
      source_record: `form5500:F_SCH_A_PART1:${c.year[slot]}:${c.ackAt(slot)}`,
    });
  }
  const spill = c.adopt(new DocSpill());
  for (const d of out.values()) spill.add(d);
  return spill;
}

/**
 * The lines of the clients' latest filings and of their year before, grouped by firm: firms in
 * the order first seen on a latest filing (slot order), each firm's lines in slot order. Lines of
 * firms with no line on a latest filing are left out (they only ever counted for growth).
 */
function linesByFirm(c: Collected, order: Int32Array, role: Uint8Array): { lines: Int32Array; start: Int32Array } {
  const rank = new Int32Array(c.strings.list.length).fill(-1);
  let firms = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (c.lineFirm[i] >= 0 && role[c.lineSlot[i]] & ROLE.current && rank[c.lineFirm[i]] < 0) rank[c.lineFirm[i]] = firms++;
  }
  const firmOf = new Int32Array(order.length).fill(-1);
  let n = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (c.lineFirm[i] < 0 || !(role[c.lineSlot[i]] & (ROLE.current | ROLE.prior)) || rank[c.lineFirm[i]] < 0) continue;
    firmOf[k] = rank[c.lineFirm[i]];
    n++;
  }
  const start = new Int32Array(firms + 1);
  for (let k = 0; k < order.length; k++) if (firmOf[k] >= 0) start[firmOf[k] + 1]++;
  for (let f = 0; f < firms; f++) start[f + 1] += start[f];
  const at = start.slice(0, firms);
  const lines = new Int32Array(n);
  for (let k = 0; k < order.length; k++) if (firmOf[k] >= 0) lines[at[firmOf[k]]++] = order[k];
  return { lines, start };
}

/**
 * Firm and office rows, one firm at a time (its offices with it): only one firm's groups are held,
 * where all 130,000 firm and office groups of a full year, with a set or map per figure, were
 * the import's peak of memory. A function of its own so that no closure kept for the companies
 * (sponsorBrokersOf's) holds the groups alive.
 */
function brokerDocs(c: Collected, order: Int32Array, role: Uint8Array, every1000: () => void): { firmDocs: DocSpill; officeDocs: DocSpill; firmOnlyLines: number } {
  const strings = c.strings.list;
  const { lines, start } = linesByFirm(c, order, role);
  const firmDocs = c.adopt(new DocSpill());
  const officeDocs = c.adopt(new DocSpill());
  let firmOnlyLines = 0;
  let steps = 0;
  const source = (i: number) => `form5500:F_SCH_A_PART1:${c.year[c.lineSlot[i]]}:${c.ackAt(c.lineSlot[i])}`;
  for (let f = 0; f + 1 < start.length; f++) {
    // Named after the firm's first line on a latest filing (a firm's group holds one, lines of the year before may come first).
    let first = start[f];
    while (!(role[c.lineSlot[lines[first]]] & ROLE.current)) first++;
    const firm = newGroup(strings[c.lineFirm[lines[first]]], source(lines[first]), false);
    const offices = new Map<number, OfficeGroup>();
    // Lines on the clients' latest filings make the firm and its offices; lines of the year before count for growth.
    for (let k = start[f]; k < start[f + 1]; k++) {
      if (++steps % 1000 === 0) every1000();
      const i = lines[k];
      const slot = c.lineSlot[i];
      if (!(role[slot] & ROLE.current)) continue;
      const comparable = (role[slot] & ROLE.comparable) !== 0;
      record(firm, c, i, comparable);
      const ok = c.lineOffice[i];
      if (ok < 0) {
        firmOnlyLines++;
        continue;
      }
      let office = offices.get(ok);
      if (!office) {
        const [city, state, zip, ...street] = strings[c.lineAddress[i]].split('|');
        offices.set(ok, (office = { ...newGroup(strings[ok], source(i), true), firm: firm.key, address: { city, state, zip, street: street.join('|') } }));
      }
      record(office, c, i, comparable);
    }
    for (let k = start[f]; k < start[f + 1]; k++) {
      const i = lines[k];
      if (!(role[c.lineSlot[i]] & ROLE.prior)) continue;
      const office = c.lineOffice[i] < 0 ? undefined : offices.get(c.lineOffice[i]);
      for (const g of [firm, office]) if (g) g.prior = (g.prior ?? 0) + c.linePaid[i];
    }
    const siblings = [...offices.values()];
    // Growth needs the year before imported for some client of the group.
    for (const g of [firm, ...siblings]) if (g.prior === null && g.comparable !== 0) g.prior = 0;
    const doc = firmDoc(firm, siblings, strings);
    firmDocs.add(doc);
    for (const o of siblings) officeDocs.add(officeDoc(o, String(doc.broker_name), siblings));
  }
  return { firmDocs, officeDocs, firmOnlyLines };
}

/** What the companies need from the broker side, for a sponsor's filings of one plan year (their slots). */
function sponsorBrokersOf(c: Collected, order: Int32Array, start: Int32Array): BrokerSide['sponsorBrokers'] {
  const strings = c.strings.list;
  const officeIds = new Map<number, string>();
  const officeId = (ok: number) => officeIds.get(ok) ?? (officeIds.set(ok, stableId('office', strings[ok])).get(ok) as string);
  const sponsorBrokers = (slots: readonly number[]): SponsorBrokers | undefined => {
    let s: SponsorBrokers | undefined;
    for (const slot of slots) {
      if (start[slot] === start[slot + 1]) continue;
      s ??= { officeIds: new Set(), byOffice: new Map(), byFirm: new Map() };
      for (let k = start[slot]; k < start[slot + 1]; k++) {
        const i = order[k];
        if (c.lineKind[i] !== LINE.welfare || c.lineFirm[i] < 0) continue;
        const fk = strings[c.lineFirm[i]];
        s.byFirm.set(fk, (s.byFirm.get(fk) ?? 0) + c.linePaid[i]);
        if (c.lineOffice[i] < 0) continue;
        const id = officeId(c.lineOffice[i]);
        s.officeIds.add(id);
        s.byOffice.set(id, (s.byOffice.get(id) ?? 0) + c.linePaid[i]);
      }
    }
    return s;
  };
  return sponsorBrokers;
}

function firmDoc(g: Group, offices: OfficeGroup[], strings: readonly string[]): Doc {
  const { latest, growth } = figures(g);
  const hq = [...offices].sort((a, b) => b.latest.paid - a.latest.paid)[0];
  return {
    id: stableId('firm', g.key), broker_name: displayName(g.names, strings), hq_city: hq ? titleCity(hq.address.city) : null, hq_state: hq?.address.state || null,
    hq_dma: hq ? dmaOf(hq.address.city, hq.address.state) : null, brokerage_class: brokerageClass(offices), total_clients: latest.clients.size,
    total_offices: offices.length, total_commissions: nonNegative(latest.paid), total_premiums: nonNegative(latest.premiums), commission_growth: growth,
    lines_of_business: linesOf(g.lines), broker_codes: codesOf(g.codes),
    last_updated_at: dayStr(latest.received) || null, source_record: g.source,
  };
}

function officeDoc(o: OfficeGroup, firmName: string, siblings: OfficeGroup[]): Doc {
  const { latest, growth } = figures(o);
  const sameCity = siblings.filter((s) => s.address.city === o.address.city && s.address.state === o.address.state).length > 1;
  const place = `${titleCity(o.address.city)}${sameCity ? ` (${o.address.street})` : ''}`;
  return {
    id: stableId('office', o.key), office_name: `${firmName} - ${place}`, broker_id: stableId('firm', o.firm), city: titleCity(o.address.city),
    state: o.address.state || null, zip: o.address.zip || null, dma: dmaOf(o.address.city, o.address.state), client_count: latest.clients.size,
    total_commissions: nonNegative(latest.paid), total_premiums: nonNegative(latest.premiums), broker_commission_growth_pct: growth, carriers: [...(o.carriers ?? [])],
    lines_of_business: linesOf(o.lines), broker_codes: codesOf(o.codes),
    employee_coverage: [...(o.bands ?? [])], industry_coverage: [...(o.industries ?? [])], last_updated_at: dayStr(latest.received) || null, source_record: o.source,
  };
}
