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

/** Area codes by state: the fallback for a city missing from CITY_CODES. */
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

/** Area codes and ZIP prefix (first three digits) of each city in CITIES. */
const CITY_CODES: Record<string, readonly [area: readonly number[], zip3: number]> = {
  'New York|NY': [[212, 646, 917], 100], 'Brooklyn|NY': [[718, 347], 112], 'Newark|NJ': [[973, 862], 71], 'Jersey City|NJ': [[201, 551], 73],
  'White Plains|NY': [[914], 106], 'Stamford|CT': [[203], 69], 'Los Angeles|CA': [[213, 323, 310], 900], 'Long Beach|CA': [[562], 908],
  'Irvine|CA': [[949], 926], 'Anaheim|CA': [[714], 928], 'Pasadena|CA': [[626], 911], 'Chicago|IL': [[312, 773, 872], 606],
  'Naperville|IL': [[630, 331], 605], 'Schaumburg|IL': [[847, 224], 601], 'Philadelphia|PA': [[215, 267], 191], 'Cherry Hill|NJ': [[856], 80],
  'Wilmington|DE': [[302], 198], 'Dallas|TX': [[214, 469, 972], 752], 'Fort Worth|TX': [[817, 682], 761], 'Plano|TX': [[972, 469], 750],
  'Irving|TX': [[972, 214], 750], 'San Francisco|CA': [[415, 628], 941], 'San Jose|CA': [[408, 669], 951], 'Oakland|CA': [[510, 341], 946],
  'Palo Alto|CA': [[650], 943], 'Atlanta|GA': [[404, 470, 678], 303], 'Alpharetta|GA': [[770, 678], 300], 'Marietta|GA': [[770, 678], 300],
  'Houston|TX': [[713, 281, 832], 770], 'The Woodlands|TX': [[281, 832], 773], 'Sugar Land|TX': [[281, 832], 774], 'Washington|DC': [[202], 200],
  'Arlington|VA': [[703, 571], 222], 'Bethesda|MD': [[301, 240], 208], 'Reston|VA': [[703, 571], 201], 'Boston|MA': [[617, 857], 21],
  'Cambridge|MA': [[617, 857], 21], 'Manchester|NH': [[603], 31], 'Worcester|MA': [[508, 774], 16], 'Phoenix|AZ': [[602, 480, 623], 850],
  'Scottsdale|AZ': [[480], 852], 'Tempe|AZ': [[480], 852], 'Seattle|WA': [[206], 981], 'Bellevue|WA': [[425], 980],
  'Tacoma|WA': [[253], 984], 'Tampa|FL': [[813], 336], 'St. Petersburg|FL': [[727], 337], 'Sarasota|FL': [[941], 342],
  'Minneapolis|MN': [[612], 554], 'St. Paul|MN': [[651], 551], 'Bloomington|MN': [[952], 554], 'Detroit|MI': [[313], 482],
  'Troy|MI': [[248], 480], 'Southfield|MI': [[248], 480], 'Ann Arbor|MI': [[734], 481], 'Denver|CO': [[303, 720], 802],
  'Aurora|CO': [[303, 720], 800], 'Boulder|CO': [[303, 720], 803], 'Miami|FL': [[305, 786], 331], 'Fort Lauderdale|FL': [[954, 754], 333],
  'Boca Raton|FL': [[561], 334], 'Orlando|FL': [[407, 321], 328], 'Daytona Beach|FL': [[386], 321], 'Cleveland|OH': [[216], 441],
  'Akron|OH': [[330, 234], 443], 'Sacramento|CA': [[916, 279], 958], 'Stockton|CA': [[209], 952], 'Charlotte|NC': [[704, 980], 282],
  'Raleigh|NC': [[919, 984], 276], 'Durham|NC': [[919, 984], 277], 'Portland|OR': [[503, 971], 972], 'Beaverton|OR': [[503, 971], 970],
  'St. Louis|MO': [[314], 631], 'Clayton|MO': [[314], 631], 'Pittsburgh|PA': [[412], 152], 'Indianapolis|IN': [[317], 462],
  'Carmel|IN': [[317], 460], 'Nashville|TN': [[615, 629], 372], 'Franklin|TN': [[615, 629], 370], 'Baltimore|MD': [[410, 443], 212],
  'Salt Lake City|UT': [[801, 385], 841], 'Provo|UT': [[801, 385], 846], 'San Diego|CA': [[619, 858], 921], 'Carlsbad|CA': [[760, 442], 920],
  'Hartford|CT': [[860], 61], 'New Haven|CT': [[203, 475], 65], 'Kansas City|MO': [[816], 641], 'Overland Park|KS': [[913], 662],
  'Columbus|OH': [[614, 380], 432], 'Cincinnati|OH': [[513], 452], 'Milwaukee|WI': [[414], 532], 'San Antonio|TX': [[210, 726], 782],
  'Austin|TX': [[512, 737], 787], 'Las Vegas|NV': [[702, 725], 891], 'Henderson|NV': [[702, 725], 890], 'Jacksonville|FL': [[904], 322],
  'Greenville|SC': [[864], 296], 'Asheville|NC': [[828], 288], 'Columbia|SC': [[803, 839], 292], 'Charleston|SC': [[843, 854], 294],
  'Birmingham|AL': [[205, 659], 352], 'Huntsville|AL': [[256, 938], 358], 'Louisville|KY': [[502], 402], 'Lexington|KY': [[859], 405],
  'Memphis|TN': [[901], 381], 'Knoxville|TN': [[865], 379], 'New Orleans|LA': [[504], 701], 'Baton Rouge|LA': [[225], 708],
  'Oklahoma City|OK': [[405], 731], 'Tulsa|OK': [[918, 539], 741], 'Albuquerque|NM': [[505], 871], 'Santa Fe|NM': [[505], 875],
  'Omaha|NE': [[402, 531], 681], 'Lincoln|NE': [[402, 531], 685], 'Des Moines|IA': [[515], 503], 'Cedar Rapids|IA': [[319], 524],
  'Richmond|VA': [[804], 232], 'Norfolk|VA': [[757], 235], 'Virginia Beach|VA': [[757], 234], 'Buffalo|NY': [[716], 142],
  'Rochester|NY': [[585], 146], 'Albany|NY': [[518], 122], 'Syracuse|NY': [[315, 680], 132], 'Providence|RI': [[401], 29],
  'Grand Rapids|MI': [[616], 495], 'Madison|WI': [[608], 537], 'Green Bay|WI': [[920], 543], 'Boise|ID': [[208, 986], 837],
  'Spokane|WA': [[509], 992], 'Honolulu|HI': [[808], 968], 'Anchorage|AK': [[907], 995], 'Little Rock|AR': [[501], 722],
  'Jackson|MS': [[601, 769], 392], 'Wichita|KS': [[316], 672], 'Fargo|ND': [[701], 581], 'Sioux Falls|SD': [[605], 571],
  'Billings|MT': [[406], 591], 'Cheyenne|WY': [[307], 820], 'Portland|ME': [[207], 41], 'Burlington|VT': [[802], 54],
  'Charleston|WV': [[304, 681], 253], 'Wilmington|NC': [[910], 284], 'Harrisburg|PA': [[717, 223], 171], 'Lancaster|PA': [[717, 223], 176],
  'Allentown|PA': [[610, 484], 181], 'Fresno|CA': [[559], 937], 'Tucson|AZ': [[520], 857], 'El Paso|TX': [[915], 799],
  'Toledo|OH': [[419, 567], 436], 'Dayton|OH': [[937, 326], 454], 'Fort Myers|FL': [[239], 339], 'Naples|FL': [[239], 341],
  'San Juan|PR': [[787, 939], 9],
};

/** A city's codes, or (for a city missing from the table) codes of its state. */
function codesOf(city: string, state: string): readonly [readonly number[], number] {
  const known = CITY_CODES[`${city}|${state}`];
  if (known) return known;
  const [lo, hi] = ZIP3[state] ?? [100, 999];
  const codes = AREA_CODES[state] ?? [800];
  const h = hashString(`${city}|${state}`);
  return [[codes[h % codes.length]], lo + (h % (hi - lo + 1))];
}
const CITY_AREA: readonly (readonly number[])[] = CITIES.map((c) => codesOf(c[0], c[1])[0]);
const CITY_ZIP3: Int32Array = Int32Array.from(CITIES, (c) => codesOf(c[0], c[1])[1]);

/** A plausible 5-digit ZIP code of a city. */
export function zipOf(rng: Rng, city: number): string {
  return String(CITY_ZIP3[city] * 100 + rng.int(1, 99)).padStart(5, '0');
}

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
