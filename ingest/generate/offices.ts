/**
 * Broker offices. Offices are laid out in contiguous blocks per broker (see context.ts):
 * office o is the p-th office of broker b. The first office is at the broker's
 * headquarters; national players spread over the biggest markets, regional players over
 * their census region.
 */
import { EMPLOYEE_BANDS } from '../../mappings/reference.ts';
import { brokerCore, brokerId, type BrokerCore } from './brokers.ts';
import { officeCarriers } from './carriers.ts';
import type { Ctx } from './context.ts';
import { dec2, int, keywords, slug, type Row } from './format.ts';
import {
  NATIONAL_FOOTPRINT, NATIONAL_POS, REGION_FOOTPRINT, REGION_POS, cityDma, cityName, cityState, phoneOf, regionOf, zipOf,
} from './geo.ts';
import { rowRng, uuid } from './prng.ts';
import { pickSignals, signalList } from './signals.ts';
import { LISTABLE_INDUSTRY_PICK } from './words.ts';
import type { BrokerageClass } from './orgnames.ts';

export function officeId(ctx: Ctx, o: number): string {
  return uuid(ctx.keys['broker-offices'] ^ 0x2e, o);
}

/**
 * The city of a broker's p-th office (of n), and its round: 0 the first time the broker
 * is in that city, 1+ for further offices there ("North", "South", ...).
 */
export function officePlace(core: BrokerCore, p: number, n: number): { city: number; round: number } {
  if (n <= 1 || p === 0) return { city: core.hq, round: 0 };
  const national = core.cls === 'national player';
  const region = regionOf(core.hq);
  const list = national ? NATIONAL_FOOTPRINT : REGION_FOOTPRINT[region];
  const hqPos = (national ? NATIONAL_POS : REGION_POS[region])[core.hq];
  const others = list.length - 1;
  if (others <= 0) return { city: core.hq, round: p };
  const q = p - 1;
  const idx = q % others;
  return { city: list[idx >= hqPos ? idx + 1 : idx], round: Math.floor(q / others) };
}

const ROUND_NAMES = ['North', 'South', 'East', 'West', 'Downtown', 'Central', 'Midtown', 'Uptown'];

export interface OfficeNumbers {
  clients: number;
  premiums: number;
  commissions: number;
  /** Commission growth in percent, or null when unknown. */
  growth: number | null;
}

/** The book of business of an office: pure function of (seed, office, class). */
export function officeNumbers(ctx: Ctx, o: number, cls: BrokerageClass): OfficeNumbers {
  const rng = rowRng(ctx.keys['broker-offices'], o, 1);
  const [median, perClient] = cls === 'national player' ? [110, 320_000] : cls === 'regional player' ? [55, 220_000] : [22, 140_000];
  const clients = Math.max(1, Math.round(rng.logNormal(median, cls === 'local broker' ? 0.9 : 0.7)));
  const premiums = Math.round(clients * rng.logNormal(perClient, 0.45));
  const commissions = Math.round(premiums * rng.range(0.035, 0.06));
  const growth = rng.chance(0.94) ? Math.max(-80, Math.round((4.5 + 11 * rng.normal()) * 100) / 100) : null;
  return { clients, premiums, commissions, growth };
}

const OFFICE_SIGNALS = signalList(['new_filer', 'carrier_change', 'broker_change', 'below_peer_growth', 'likely_to_switch']);
const BAND_LABELS = EMPLOYEE_BANDS.map((b) => b[0]);

export function officeRow(ctx: Ctx, o: number): Row {
  const L = ctx.layout;
  const b = L.officeBroker[o];
  const core = brokerCore(ctx, b);
  const n = L.firstOffice[b + 1] - L.firstOffice[b];
  const p = o - L.firstOffice[b];
  const { city, round } = officePlace(core, p, n);
  const nums = officeNumbers(ctx, o, core.cls);
  const rng = rowRng(ctx.keys['broker-offices'], o, 2);

  let name = core.name;
  if (n > 1) name = `${core.base} - ${cityName(city)}${round ? ` ${ROUND_NAMES[round - 1] ?? round + 1}` : ''}`;
  const site = `https://www.${core.domain}`;
  const website = rng.chance(0.9) ? (n > 1 && rng.chance(0.4) ? `${site}/locations/${slug(cityName(city))}` : site) : '';

  // Employee bands served: a contiguous run; bigger brokers reach bigger employers.
  const top = core.cls === 'national player' ? BAND_LABELS.length : core.cls === 'regional player' ? 6 : 4;
  const lo = rng.int(0, 1);
  const hi = Math.max(lo + 1, rng.int(Math.min(2, top - 1), top - 1));
  const industries = new Set<string>();
  const k = rng.int(2, core.cls === 'local broker' ? 4 : 7);
  for (let i = 0; i < k; i++) industries.add(LISTABLE_INDUSTRY_PICK.pick(rng));

  return {
    id: officeId(ctx, o),
    office_name: name,
    broker_id: brokerId(ctx, b),
    website,
    city: cityName(city),
    state: cityState(city),
    zip: rng.chance(0.95) ? zipOf(rng, city) : '',
    dma: cityDma(city),
    phone_number: rng.chance(0.85) ? phoneOf(rng, city) : '',
    client_count: String(nums.clients),
    total_commissions: int(nums.commissions),
    total_premiums: int(nums.premiums),
    broker_commission_growth_pct: nums.growth === null ? '' : dec2(nums.growth),
    carriers: rng.chance(0.92) ? keywords(officeCarriers(rng, cityState(city), rng.int(3, core.cls === 'local broker' ? 7 : 12))) : '',
    employee_coverage: rng.chance(0.9) ? keywords(BAND_LABELS.slice(lo, hi + 1)) : '',
    industry_coverage: rng.chance(0.85) ? keywords([...industries]) : '',
    signals: keywords(pickSignals(rng, 0.18, OFFICE_SIGNALS)),
    last_updated_at: ctx.days.ago(rng.int(0, ctx.days.span - 1)),
  };
}
