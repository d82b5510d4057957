/**
 * Broker firms and offices from the Part I lines of kept filings (pure): lines are grouped into
 * offices (same firm key at the same address key) and firms (same firm key); a line with no
 * address counts for its firm only. Figures are those of the latest plan year the office or
 * firm appears in, with growth against the year before when that year was imported too.
 */
import { CITIES, EMPLOYEE_BANDS, bandOf } from '../../mappings/reference.ts';
import { findIndustry } from '../../mappings/industries.ts';
import type { Doc } from '../../mappings/types.ts';
import type { Collected, Filing } from './collect.ts';
import { firmKey, officeKey, stableId, zip5 } from './resolve.ts';

interface YearFigures {
  paid: number;
  premiums: number;
  clients: Set<string>;
  received: string;
}

interface Group {
  key: string;
  names: Map<string, number>;
  years: Map<number, YearFigures>;
  carriers: Set<string>;
  industries: Set<string>;
  bands: Set<string>;
  source: string;
}

interface OfficeGroup extends Group {
  firm: string;
  address: { city: string; state: string; zip: string; street: string };
}

/** What the companies need from the broker side, per sponsor and plan year. */
export interface SponsorBrokers {
  officeIds: Set<string>;
  /** Paid per office id and per firm key. */
  byOffice: Map<string, number>;
  byFirm: Map<string, number>;
}

export interface BrokerSide {
  firms: Doc[];
  offices: Doc[];
  /** Key `${ein}|${year}`. */
  sponsors: Map<string, SponsorBrokers>;
  counts: { firmOnlyLines: number };
}

const DMA = new Map(CITIES.map(([city, state, dma]) => [`${city.toUpperCase()}|${state}`, dma]));
export const dmaOf = (city: string, state: string) => DMA.get(`${city.trim().toUpperCase()}|${state.trim().toUpperCase()}`) ?? null;
export const industryOf = (businessCode: string) => findIndustry(businessCode.slice(0, 4))?.label ?? null;

function newGroup(key: string, source: string): Group {
  return { key, names: new Map(), years: new Map(), carriers: new Set(), industries: new Set(), bands: new Set(), source };
}

function yearOf(g: Group, year: number): YearFigures {
  let y = g.years.get(year);
  if (!y) g.years.set(year, (y = { paid: 0, premiums: 0, clients: new Set(), received: '' }));
  return y;
}

/** The most frequent spelling, the longest on a tie ("1ST GLOBAL CAPITAL CORP" over "1ST GLOBAL CAPITAL"). */
function displayName(names: Map<string, number>): string {
  let best = '';
  let n = -1;
  for (const [name, c] of names) if (c > n || (c === n && name.length > best.length)) [best, n] = [name, c];
  return best;
}

function record(g: Group, f: Filing, name: string, paid: number, premium: number, carrier: string): void {
  g.names.set(name, (g.names.get(name) ?? 0) + 1);
  const y = yearOf(g, f.year);
  y.paid += paid;
  y.premiums += premium;
  y.clients.add(f.ein);
  if (f.received > y.received) y.received = f.received;
  if (carrier) g.carriers.add(carrier);
  const industry = industryOf(f.businessCode);
  if (industry) g.industries.add(industry);
  const band = bandOf(EMPLOYEE_BANDS, f.active);
  if (band) g.bands.add(band);
}

/** Latest year's figures and growth of paid amounts over the year before (when imported). */
function figures(g: Group): { year: number; latest: YearFigures; growth: number | null } {
  const year = Math.max(...g.years.keys());
  const latest = g.years.get(year) as YearFigures;
  const prior = g.years.get(year - 1);
  const growth = prior && prior.paid > 0 ? Math.round(((latest.paid - prior.paid) / prior.paid) * 10000) / 100 : null;
  return { year, latest, growth: growth === null ? null : Math.min(100000, Math.max(-100, growth)) };
}

const titleCity = (s: string) => s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

/** National: offices in 10+ states; regional: 2+ states or 5+ offices; else local. */
function brokerageClass(offices: OfficeGroup[]): string {
  const states = new Set(offices.map((o) => o.address.state)).size;
  return states >= 10 ? 'national player' : states >= 2 || offices.length >= 5 ? 'regional player' : 'local broker';
}

export function buildBrokers(c: Collected, kept: Iterable<Filing>): BrokerSide {
  const firms = new Map<string, Group>();
  const offices = new Map<string, OfficeGroup>();
  const sponsors = new Map<string, SponsorBrokers>();
  let firmOnlyLines = 0;
  for (const f of kept) {
    const lines = c.lines.get(f.ack);
    if (!lines) continue;
    const contracts = new Map((c.contracts.get(f.ack) ?? []).map((k) => [k.formId, k]));
    const sk = `${f.ein}|${f.year}`;
    let s = sponsors.get(sk);
    if (!s) sponsors.set(sk, (s = { officeIds: new Set(), byOffice: new Map(), byFirm: new Map() }));
    for (const line of lines) {
      const fk = firmKey(line.name);
      if (!fk) continue;
      const contract = contracts.get(line.formId);
      const premium = contract?.premium ?? 0;
      const source = `form5500:F_SCH_A_PART1:${f.year}:${f.ack}`;
      let firm = firms.get(fk);
      if (!firm) firms.set(fk, (firm = newGroup(fk, source)));
      record(firm, f, line.name, line.paid, premium, contract?.carrier ?? '');
      s.byFirm.set(fk, (s.byFirm.get(fk) ?? 0) + line.paid);
      const ok = officeKey(fk, line);
      if (!ok) {
        firmOnlyLines++;
        continue;
      }
      let office = offices.get(ok);
      if (!office) {
        const address = { city: line.city.trim().toUpperCase(), state: line.state.trim().toUpperCase(), zip: zip5(line.zip), street: line.address1 };
        offices.set(ok, (office = { ...newGroup(ok, source), firm: fk, address }));
      }
      record(office, f, line.name, line.paid, premium, contract?.carrier ?? '');
      const id = stableId('office', ok);
      s.officeIds.add(id);
      s.byOffice.set(id, (s.byOffice.get(id) ?? 0) + line.paid);
    }
  }
  const officesOf = new Map<string, OfficeGroup[]>();
  for (const o of offices.values()) (officesOf.get(o.firm) ?? officesOf.set(o.firm, []).get(o.firm))?.push(o);

  const firmDocs = [...firms.values()].map((g) => firmDoc(g, officesOf.get(g.key) ?? []));
  const names = new Map(firmDocs.map((d, i) => [[...firms.keys()][i], String(d.broker_name)]));
  const officeDocs = [...offices.values()].map((o) => officeDoc(o, names.get(o.firm) ?? displayName(o.names), officesOf.get(o.firm) ?? []));
  return { firms: firmDocs, offices: officeDocs, sponsors, counts: { firmOnlyLines } };
}

function firmDoc(g: Group, offices: OfficeGroup[]): Doc {
  const { latest, growth } = figures(g);
  const hq = [...offices].sort((a, b) => (figures(b).latest.paid - figures(a).latest.paid))[0];
  return {
    id: stableId('firm', g.key), broker_name: displayName(g.names), hq_city: hq ? titleCity(hq.address.city) : null, hq_state: hq?.address.state || null,
    hq_dma: hq ? dmaOf(hq.address.city, hq.address.state) : null, brokerage_class: brokerageClass(offices), total_clients: latest.clients.size,
    total_offices: offices.length, total_commissions: latest.paid, total_premiums: latest.premiums, commission_growth: growth,
    last_updated_at: latest.received || null, source_record: g.source,
  };
}

function officeDoc(o: OfficeGroup, firmName: string, siblings: OfficeGroup[]): Doc {
  const { latest, growth } = figures(o);
  const sameCity = siblings.filter((s) => s.address.city === o.address.city && s.address.state === o.address.state).length > 1;
  const place = `${titleCity(o.address.city)}${sameCity ? ` (${o.address.street})` : ''}`;
  return {
    id: stableId('office', o.key), office_name: `${firmName} - ${place}`, broker_id: stableId('firm', o.firm), city: titleCity(o.address.city),
    state: o.address.state || null, zip: o.address.zip || null, dma: dmaOf(o.address.city, o.address.state), client_count: latest.clients.size,
    total_commissions: latest.paid, total_premiums: latest.premiums, broker_commission_growth_pct: growth, carriers: [...o.carriers],
    employee_coverage: [...o.bands], industry_coverage: [...o.industries], last_updated_at: latest.received || null, source_record: o.source,
  };
}
