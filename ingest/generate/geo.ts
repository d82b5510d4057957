/**
 * Places: weighted city picks from CITIES, area codes and ZIP prefixes by state, census
 * regions (the footprint of regional brokers), phone numbers and ZIP codes.
 */
import { CITIES, DMAS } from '../../mappings/reference.ts';
import { hashString, type Rng, Weighted } from './prng.ts';

/** City indices into CITIES, weighted by establishment share. */
export const CITY_PICK = new Weighted(CITIES.map((c, i) => [i, c[3]] as const));
/** Big-metro bias (weight squared): where national brokers keep their headquarters. */
export const METRO_PICK = new Weighted(CITIES.map((c, i) => [i, c[3] * c[3]] as const));

export const cityName = (i: number): string => CITIES[i][0];
export const cityState = (i: number): string => CITIES[i][1];
export const cityDma = (i: number): string => CITIES[i][2];

const dmaIndex = new Map(DMAS.map((d, i) => [d, i]));
/** DMA index of each city (into DMAS). */
export const CITY_DMA: Int32Array = Int32Array.from(CITIES, (c) => dmaIndex.get(c[2]) ?? 0);
export const DMA_COUNT = DMAS.length;

/** Area codes by state (a few per state). */
const AREA_CODES: Record<string, readonly number[]> = {
  AL: [205, 251, 256, 334], AK: [907], AZ: [480, 520, 602, 623], AR: [479, 501, 870], CA: [213, 310, 408, 415, 510, 559, 619, 626, 714, 818, 916, 949],
  CO: [303, 719, 720, 970], CT: [203, 475, 860], DE: [302], DC: [202], FL: [239, 305, 321, 407, 561, 727, 813, 904, 941, 954],
  GA: [404, 470, 678, 706, 770, 912], HI: [808], ID: [208], IL: [217, 312, 630, 708, 773, 815, 847], IN: [219, 260, 317, 574, 812],
  IA: [319, 515, 563], KS: [316, 785, 913], KY: [270, 502, 606, 859], LA: [225, 318, 337, 504], ME: [207], MD: [240, 301, 410, 443],
  MA: [413, 508, 617, 781, 978], MI: [248, 313, 517, 586, 616, 734], MN: [218, 507, 612, 651, 763, 952], MS: [228, 601, 662],
  MO: [314, 417, 573, 636, 816], MT: [406], NE: [308, 402, 531], NV: [702, 725, 775], NH: [603], NJ: [201, 609, 732, 856, 908, 973],
  NM: [505, 575], NY: [212, 315, 347, 516, 518, 585, 631, 646, 716, 718, 845, 914], NC: [252, 336, 704, 828, 910, 919, 980],
  ND: [701], OH: [216, 330, 419, 440, 513, 614, 740, 937], OK: [405, 580, 918], OR: [503, 541, 971], PA: [215, 267, 412, 484, 570, 610, 717, 814],
  RI: [401], SC: [803, 843, 864], SD: [605], TN: [423, 615, 731, 865, 901, 931], TX: [210, 214, 254, 281, 361, 409, 469, 512, 713, 806, 817, 832, 915, 972],
  UT: [385, 435, 801], VT: [802], VA: [276, 434, 540, 571, 703, 757, 804], WA: [206, 253, 360, 425, 509], WV: [304, 681],
  WI: [262, 414, 608, 715, 920], WY: [307], PR: [787, 939], GU: [671], VI: [340], AS: [684], MP: [670],
};

/** First three ZIP digits by state: [lowest, highest]. */
const ZIP3: Record<string, readonly [number, number]> = {
  AL: [350, 369], AK: [995, 999], AZ: [850, 865], AR: [716, 729], CA: [900, 961], CO: [800, 816], CT: [60, 69], DE: [197, 199],
  DC: [200, 205], FL: [320, 349], GA: [300, 319], HI: [967, 968], ID: [832, 838], IL: [600, 629], IN: [460, 479], IA: [500, 528],
  KS: [660, 679], KY: [400, 427], LA: [700, 714], ME: [39, 49], MD: [206, 219], MA: [10, 27], MI: [480, 499], MN: [550, 567],
  MS: [386, 397], MO: [630, 658], MT: [590, 599], NE: [680, 693], NV: [889, 898], NH: [30, 38], NJ: [70, 89], NM: [870, 884],
  NY: [100, 149], NC: [270, 289], ND: [580, 588], OH: [430, 459], OK: [730, 749], OR: [970, 979], PA: [150, 196], RI: [28, 29],
  SC: [290, 299], SD: [570, 577], TN: [370, 385], TX: [750, 799], UT: [840, 847], VT: [50, 59], VA: [220, 246], WA: [980, 994],
  WV: [247, 268], WI: [530, 549], WY: [820, 831], PR: [6, 9], GU: [969, 969], VI: [8, 8], AS: [967, 967], MP: [969, 969],
};

/** Each city keeps one ZIP prefix (a few nearby codes), stable across rows. */
const CITY_ZIP3: Int32Array = Int32Array.from(CITIES, (c) => {
  const [lo, hi] = ZIP3[c[1]] ?? [100, 999];
  return lo + (hashString(`${c[0]}|${c[1]}`) % (hi - lo + 1));
});

/** A plausible 5-digit ZIP code of a city. */
export function zipOf(rng: Rng, city: number): string {
  return String(CITY_ZIP3[city] * 100 + rng.int(1, 99)).padStart(5, '0');
}

const CITY_AREA: readonly (readonly number[])[] = CITIES.map((c) => {
  const codes = AREA_CODES[c[1]] ?? [800];
  const h = hashString(c[0]);
  // A city uses one or two of its state's codes.
  return codes.length === 1 ? codes : [codes[h % codes.length], codes[(h >>> 8) % codes.length]];
});

/** A phone number `(XXX) XXX-XXXX` local to a city. */
export function phoneOf(rng: Rng, city: number): string {
  const area = rng.pick(CITY_AREA[city]);
  let exchange = rng.int(201, 989);
  if (exchange % 100 === 11 || exchange === 555) exchange += 1;
  return `(${area}) ${exchange}-${String(rng.int(0, 9999)).padStart(4, '0')}`;
}

/** Census regions by state: where a regional broker's offices are. */
const REGION_OF: Record<string, number> = {};
const REGIONS: readonly (readonly string[])[] = [
  ['CT', 'ME', 'MA', 'NH', 'RI', 'VT', 'NJ', 'NY', 'PA'],
  ['IL', 'IN', 'MI', 'OH', 'WI', 'IA', 'KS', 'MN', 'MO', 'NE', 'ND', 'SD'],
  ['DE', 'DC', 'FL', 'GA', 'MD', 'NC', 'SC', 'VA', 'WV', 'AL', 'KY', 'MS', 'TN', 'AR', 'LA', 'OK', 'TX', 'PR', 'VI'],
  ['AZ', 'CO', 'ID', 'MT', 'NV', 'NM', 'UT', 'WY', 'AK', 'CA', 'HI', 'OR', 'WA', 'GU', 'AS', 'MP'],
];
REGIONS.forEach((states, r) => states.forEach((s) => (REGION_OF[s] = r)));

const byWeight = (a: number, b: number): number => CITIES[b][3] - CITIES[a][3] || a - b;
/** Every city, biggest market first: the office footprint of a national broker. */
export const NATIONAL_FOOTPRINT: Int32Array = Int32Array.from(CITIES.map((_, i) => i).sort(byWeight));
/** The cities of each region, biggest first: the footprint of a regional broker. */
export const REGION_FOOTPRINT: readonly Int32Array[] = REGIONS.map((_, r) =>
  Int32Array.from(CITIES.map((_, i) => i).filter((i) => REGION_OF[CITIES[i][1]] === r).sort(byWeight)),
);
function positions(list: Int32Array): Int32Array {
  const pos = new Int32Array(CITIES.length).fill(-1);
  list.forEach((city, i) => (pos[city] = i));
  return pos;
}
/** Position of each city in the national footprint, and in its region's footprint (-1 when absent). */
export const NATIONAL_POS: Int32Array = positions(NATIONAL_FOOTPRINT);
export const REGION_POS: readonly Int32Array[] = REGION_FOOTPRINT.map(positions);

export function regionOf(city: number): number {
  return REGION_OF[CITIES[city][1]] ?? 0;
}
