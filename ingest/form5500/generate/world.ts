/**
 * The synthetic world behind generated DOL datasets: sponsors, broker firms and their offices,
 * each a pure function of (seed, index), so every year of one seed describes the same
 * employers and brokers (ids stay stable across years) and rows can be written in any order.
 */
import { CARRIERS } from '../../../mappings/reference.ts';
import { INDUSTRIES } from '../../../mappings/industries.ts';
import { FIRST_NAMES, lastName } from '../../generate/names.ts';
import { brokerName, companyName } from '../../generate/orgnames.ts';
import { CITY_PICK, cityName, cityState, phoneOf, zipOf } from '../../generate/geo.ts';
import { combine, entityKey, hashString, rowRng, type Rng } from '../../generate/prng.ts';

export interface Sponsor {
  ein: string;
  name: string;
  businessCode: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  /** Active participants in the base year and yearly growth rate. */
  base: number;
  growth: number;
  adminSigner: string;
  sponsorSigner: string;
  /** Year from which the sponsor uses its second broker and carrier (change signals). */
  brokerSwitchYear: number;
  carrierSwitchYear: number;
}

export interface Office {
  street: string;
  suite: string;
  city: string;
  state: string;
  zip: string;
  poBox: boolean;
}

export interface Firm {
  name: string;
  offices: number;
}

const STREET_NAMES = ['MAIN', 'OAK', 'MAPLE', 'WASHINGTON', 'PARK', 'LAKE', 'HILL', 'CEDAR', 'ELM', 'PINE', 'FIRST', 'SECOND', 'CENTRAL', 'MARKET', 'BROAD'];
const STREET_TYPES = ['STREET', 'AVENUE', 'BOULEVARD', 'DRIVE', 'ROAD', 'PARKWAY', 'LANE'];
/** Names with Latin-1 letters: written as Windows-1252 bytes in some rows, UTF-8 in others. */
const ACCENTED = ['CAFÉ', 'PEÑA', 'MÜLLER', 'JOSÉ', 'GONZÁLEZ', 'BRÛLÉE'];
const CODES = INDUSTRIES.map((i) => i.code);

export const up = (s: string) => s.toUpperCase();
export const street = (rng: Rng) => `${rng.int(10, 9999)} ${rng.pick(STREET_NAMES)} ${rng.pick(STREET_TYPES)}`;
export const person = (rng: Rng) => `${up(rng.pick(FIRST_NAMES))} ${up(lastName(rng))}`;

/** A 9-digit EIN, distinct per index (a bijection of the index below 700M). */
export function einOf(key: number, j: number): string {
  return String(200_000_000 + ((((j + (key % 1000)) * 2654435761) % 700_000_000) >>> 0)).padStart(9, '0');
}

export interface World {
  seed: number;
  sponsorKey: number;
  firmKey: number;
  firms: number;
}

export function createWorld(seed: number, firms: number): World {
  return { seed, sponsorKey: entityKey(seed, 'f5500-sponsor'), firmKey: entityKey(seed, 'f5500-firm'), firms: Math.max(1, firms) };
}

/** Sponsor j; `small` sponsors (the short-form filers) have a few participants. */
export function sponsorOf(w: World, j: number, small: boolean): Sponsor {
  const rng = rowRng(w.sponsorKey, j);
  const city = CITY_PICK.index(rng);
  const code = rng.pick(CODES);
  let name = up(companyName(rng, code, city).name);
  if (rng.chance(0.01)) name = `${rng.pick(ACCENTED)} ${name}`;
  const admin = person(rng);
  return {
    ein: einOf(w.sponsorKey, j),
    name,
    businessCode: `${code}10`,
    street: street(rng),
    city: up(cityName(city)),
    state: cityState(city),
    zip: zipOf(rng, city),
    phone: phoneOf(rng, city).replace(/\D/g, ''),
    base: Math.max(small ? 2 : 100, Math.round(small ? rng.logNormal(14, 0.8) : rng.logNormal(300, 1.1))),
    growth: rng.range(-0.08, 0.14),
    adminSigner: admin,
    sponsorSigner: rng.chance(0.6) ? admin : person(rng),
    brokerSwitchYear: 2010 + (hashString(`b${w.seed}:${j}`) % 40),
    carrierSwitchYear: 2010 + (hashString(`c${w.seed}:${j}`) % 40),
  };
}

/** Active participants of a sponsor at the end of a plan year. */
export function participantsIn(s: Sponsor, year: number, rng: Rng): number {
  return Math.max(1, Math.round(s.base * (1 + s.growth) ** (year - 2015) * rng.range(0.95, 1.05)));
}

export function firmOf(w: World, f: number): Firm {
  const rng = rowRng(w.firmKey, f);
  const cls = f < w.firms * 0.02 ? 'national player' : f < w.firms * 0.15 ? 'regional player' : 'local broker';
  const name = up(brokerName(rng, cls, CITY_PICK.index(rng)).name);
  const offices = cls === 'national player' ? rng.int(5, 25) : cls === 'regional player' ? rng.int(2, 5) : 1;
  return { name, offices };
}

export function officeOf(w: World, f: number, o: number): Office {
  const rng = rowRng(combine(w.firmKey, 7), f * 64 + o);
  const city = CITY_PICK.index(rng);
  const poBox = rng.chance(0.05);
  return {
    street: poBox ? `PO BOX ${rng.int(100, 9999)}` : street(rng),
    suite: !poBox && rng.chance(0.7) ? String(rng.int(1, 30) * 100) : '',
    city: up(cityName(city)),
    state: cityState(city),
    zip: zipOf(rng, city),
    poBox,
  };
}

/** A firm index skewed to the first (larger) firms. */
export function pickFirm(w: World, rng: Rng): number {
  return Math.min(w.firms - 1, Math.floor(w.firms * rng.next() ** 2));
}

/** A carrier, upper-cased as filed. */
export function carrierName(rng: Rng): string {
  return up(rng.pick(CARRIERS));
}
