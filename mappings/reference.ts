/**
 * Reference vocabularies shared by the entity definitions, the validators, the query
 * builder and the data generator: USPS codes, DMAs, bands and tiers, carriers, roles.
 */

/** USPS codes of the 50 states, DC and the inhabited territories, with their names. */
export const US_STATES: Readonly<Record<string, string>> = Object.freeze({
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut',
  DE: 'Delaware', DC: 'District of Columbia', FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois',
  IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine', MD: 'Maryland',
  MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota', MS: 'Mississippi', MO: 'Missouri', MT: 'Montana',
  NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico', NY: 'New York',
  NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania',
  RI: 'Rhode Island', SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah',
  VT: 'Vermont', VA: 'Virginia', WA: 'Washington', WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming',
  PR: 'Puerto Rico', GU: 'Guam', VI: 'U.S. Virgin Islands', AS: 'American Samoa', MP: 'Northern Mariana Islands',
});
export const STATE_CODES: readonly string[] = Object.freeze(Object.keys(US_STATES));

/**
 * Cities with their state and Nielsen DMA (designated market area). The DMA names are the
 * Nielsen market names; the weight is roughly the share of US establishments in the market.
 */
export const CITIES: readonly (readonly [city: string, state: string, dma: string, weight: number])[] = Object.freeze([
  ['New York', 'NY', 'New York', 60], ['Brooklyn', 'NY', 'New York', 20], ['Newark', 'NJ', 'New York', 10],
  ['Jersey City', 'NJ', 'New York', 6], ['White Plains', 'NY', 'New York', 4], ['Stamford', 'CT', 'New York', 4],
  ['Los Angeles', 'CA', 'Los Angeles', 40], ['Long Beach', 'CA', 'Los Angeles', 8], ['Irvine', 'CA', 'Los Angeles', 8],
  ['Anaheim', 'CA', 'Los Angeles', 5], ['Pasadena', 'CA', 'Los Angeles', 4],
  ['Chicago', 'IL', 'Chicago', 40], ['Naperville', 'IL', 'Chicago', 5], ['Schaumburg', 'IL', 'Chicago', 4],
  ['Philadelphia', 'PA', 'Philadelphia', 25], ['Cherry Hill', 'NJ', 'Philadelphia', 4], ['Wilmington', 'DE', 'Philadelphia', 4],
  ['Dallas', 'TX', 'Dallas-Ft. Worth', 25], ['Fort Worth', 'TX', 'Dallas-Ft. Worth', 10], ['Plano', 'TX', 'Dallas-Ft. Worth', 6],
  ['Irving', 'TX', 'Dallas-Ft. Worth', 5],
  ['San Francisco', 'CA', 'San Francisco-Oak-San Jose', 20], ['San Jose', 'CA', 'San Francisco-Oak-San Jose', 12],
  ['Oakland', 'CA', 'San Francisco-Oak-San Jose', 8], ['Palo Alto', 'CA', 'San Francisco-Oak-San Jose', 4],
  ['Atlanta', 'GA', 'Atlanta', 25], ['Alpharetta', 'GA', 'Atlanta', 5], ['Marietta', 'GA', 'Atlanta', 4],
  ['Houston', 'TX', 'Houston', 30], ['The Woodlands', 'TX', 'Houston', 4], ['Sugar Land', 'TX', 'Houston', 3],
  ['Washington', 'DC', 'Washington, DC (Hagrstwn)', 15], ['Arlington', 'VA', 'Washington, DC (Hagrstwn)', 6],
  ['Bethesda', 'MD', 'Washington, DC (Hagrstwn)', 5], ['Reston', 'VA', 'Washington, DC (Hagrstwn)', 4],
  ['Boston', 'MA', 'Boston (Manchester)', 20], ['Cambridge', 'MA', 'Boston (Manchester)', 6], ['Manchester', 'NH', 'Boston (Manchester)', 3],
  ['Worcester', 'MA', 'Boston (Manchester)', 3],
  ['Phoenix', 'AZ', 'Phoenix (Prescott)', 20], ['Scottsdale', 'AZ', 'Phoenix (Prescott)', 6], ['Tempe', 'AZ', 'Phoenix (Prescott)', 4],
  ['Seattle', 'WA', 'Seattle-Tacoma', 18], ['Bellevue', 'WA', 'Seattle-Tacoma', 5], ['Tacoma', 'WA', 'Seattle-Tacoma', 4],
  ['Tampa', 'FL', 'Tampa-St. Pete (Sarasota)', 12], ['St. Petersburg', 'FL', 'Tampa-St. Pete (Sarasota)', 5], ['Sarasota', 'FL', 'Tampa-St. Pete (Sarasota)', 3],
  ['Minneapolis', 'MN', 'Minneapolis-St. Paul', 14], ['St. Paul', 'MN', 'Minneapolis-St. Paul', 6], ['Bloomington', 'MN', 'Minneapolis-St. Paul', 3],
  ['Detroit', 'MI', 'Detroit', 12], ['Troy', 'MI', 'Detroit', 4], ['Southfield', 'MI', 'Detroit', 3], ['Ann Arbor', 'MI', 'Detroit', 3],
  ['Denver', 'CO', 'Denver', 16], ['Aurora', 'CO', 'Denver', 4], ['Boulder', 'CO', 'Denver', 3],
  ['Miami', 'FL', 'Miami-Ft. Lauderdale', 16], ['Fort Lauderdale', 'FL', 'Miami-Ft. Lauderdale', 6], ['Boca Raton', 'FL', 'West Palm Beach-Ft. Pierce', 4],
  ['Orlando', 'FL', 'Orlando-Daytona Bch-Melbrn', 12], ['Daytona Beach', 'FL', 'Orlando-Daytona Bch-Melbrn', 2],
  ['Cleveland', 'OH', 'Cleveland-Akron (Canton)', 10], ['Akron', 'OH', 'Cleveland-Akron (Canton)', 4],
  ['Sacramento', 'CA', 'Sacramento-Stkton-Modesto', 9], ['Stockton', 'CA', 'Sacramento-Stkton-Modesto', 3],
  ['Charlotte', 'NC', 'Charlotte', 12], ['Raleigh', 'NC', 'Raleigh-Durham (Fayetvlle)', 10], ['Durham', 'NC', 'Raleigh-Durham (Fayetvlle)', 4],
  ['Portland', 'OR', 'Portland, OR', 12], ['Beaverton', 'OR', 'Portland, OR', 3],
  ['St. Louis', 'MO', 'St. Louis', 12], ['Clayton', 'MO', 'St. Louis', 2],
  ['Pittsburgh', 'PA', 'Pittsburgh', 10], ['Indianapolis', 'IN', 'Indianapolis', 11], ['Carmel', 'IN', 'Indianapolis', 3],
  ['Nashville', 'TN', 'Nashville', 11], ['Franklin', 'TN', 'Nashville', 3], ['Baltimore', 'MD', 'Baltimore', 10],
  ['Salt Lake City', 'UT', 'Salt Lake City', 9], ['Provo', 'UT', 'Salt Lake City', 3],
  ['San Diego', 'CA', 'San Diego', 13], ['Carlsbad', 'CA', 'San Diego', 3], ['Hartford', 'CT', 'Hartford & New Haven', 6],
  ['New Haven', 'CT', 'Hartford & New Haven', 3], ['Kansas City', 'MO', 'Kansas City', 8], ['Overland Park', 'KS', 'Kansas City', 4],
  ['Columbus', 'OH', 'Columbus, OH', 10], ['Cincinnati', 'OH', 'Cincinnati', 9], ['Milwaukee', 'WI', 'Milwaukee', 8],
  ['San Antonio', 'TX', 'San Antonio', 11], ['Austin', 'TX', 'Austin', 12], ['Las Vegas', 'NV', 'Las Vegas', 9],
  ['Henderson', 'NV', 'Las Vegas', 3], ['Jacksonville', 'FL', 'Jacksonville', 8], ['Greenville', 'SC', 'Greenvll-Spart-Ashevll-And', 5],
  ['Asheville', 'NC', 'Greenvll-Spart-Ashevll-And', 2], ['Columbia', 'SC', 'Columbia, SC', 4], ['Charleston', 'SC', 'Charleston, SC', 4],
  ['Birmingham', 'AL', 'Birmingham (Ann and Tusc)', 6], ['Huntsville', 'AL', 'Huntsville-Decatur (Flor)', 3],
  ['Louisville', 'KY', 'Louisville', 6], ['Lexington', 'KY', 'Lexington', 3], ['Memphis', 'TN', 'Memphis', 6],
  ['Knoxville', 'TN', 'Knoxville', 3], ['New Orleans', 'LA', 'New Orleans', 6], ['Baton Rouge', 'LA', 'Baton Rouge', 3],
  ['Oklahoma City', 'OK', 'Oklahoma City', 6], ['Tulsa', 'OK', 'Tulsa', 4], ['Albuquerque', 'NM', 'Albuquerque-Santa Fe', 4],
  ['Santa Fe', 'NM', 'Albuquerque-Santa Fe', 1], ['Omaha', 'NE', 'Omaha', 4], ['Lincoln', 'NE', 'Lincoln & Hastings-Krny', 2],
  ['Des Moines', 'IA', 'Des Moines-Ames', 4], ['Cedar Rapids', 'IA', 'Cedar Rapids-Wtrlo-IWC&Dub', 2],
  ['Richmond', 'VA', 'Richmond-Petersburg', 5], ['Norfolk', 'VA', 'Norfolk-Portsmth-Newpt Nws', 5], ['Virginia Beach', 'VA', 'Norfolk-Portsmth-Newpt Nws', 3],
  ['Buffalo', 'NY', 'Buffalo', 5], ['Rochester', 'NY', 'Rochester, NY', 4], ['Albany', 'NY', 'Albany-Schenectady-Troy', 4],
  ['Syracuse', 'NY', 'Syracuse', 3], ['Providence', 'RI', 'Providence-New Bedford', 5], ['Grand Rapids', 'MI', 'Grand Rapids-Kalmzoo-B.Crk', 5],
  ['Madison', 'WI', 'Madison', 3], ['Green Bay', 'WI', 'Green Bay-Appleton', 3], ['Boise', 'ID', 'Boise', 4],
  ['Spokane', 'WA', 'Spokane', 3], ['Honolulu', 'HI', 'Honolulu', 4], ['Anchorage', 'AK', 'Anchorage', 2],
  ['Little Rock', 'AR', 'Little Rock-Pine Bluff', 3], ['Jackson', 'MS', 'Jackson, MS', 2], ['Wichita', 'KS', 'Wichita-Hutchinson Plus', 3],
  ['Fargo', 'ND', 'Fargo-Valley City', 2], ['Sioux Falls', 'SD', 'Sioux Falls (Mitchell)', 2], ['Billings', 'MT', 'Billings', 1],
  ['Cheyenne', 'WY', 'Cheyenne-Scottsbluff', 1], ['Portland', 'ME', 'Portland-Auburn', 2], ['Burlington', 'VT', 'Burlington-Plattsburgh', 1],
  ['Charleston', 'WV', 'Charleston-Huntington', 1], ['Wilmington', 'NC', 'Wilmington', 1], ['Harrisburg', 'PA', 'Harrisburg-Lncstr-Leb-York', 3],
  ['Lancaster', 'PA', 'Harrisburg-Lncstr-Leb-York', 2], ['Allentown', 'PA', 'Philadelphia', 2], ['Fresno', 'CA', 'Fresno-Visalia', 4],
  ['Tucson', 'AZ', 'Tucson (Sierra Vista)', 4], ['El Paso', 'TX', 'El Paso (Las Cruces)', 3], ['Toledo', 'OH', 'Toledo', 3],
  ['Dayton', 'OH', 'Dayton', 3], ['Fort Myers', 'FL', 'Ft. Myers-Naples', 3], ['Naples', 'FL', 'Ft. Myers-Naples', 2],
  ['San Juan', 'PR', 'San Juan', 2],
]);

/** Every DMA name, sorted. */
export const DMAS: readonly string[] = Object.freeze([...new Set(CITIES.map((c) => c[2]))].sort());

/** A band of a numeric value: [label, inclusive lower bound, exclusive upper bound]. */
export type Band = readonly [label: string, lo: number, hi: number];

/** Returns the label of the band holding value, or null for null/undefined. */
export function bandOf(bands: readonly Band[], value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  for (const [label, lo, hi] of bands) if (value >= lo && value < hi) return label;
  return null;
}

const INF = Number.POSITIVE_INFINITY;
/** Employee-count bands (companies); 1-10 is the largest band among Form 5500 filers. */
export const EMPLOYEE_BANDS: readonly Band[] = [
  ['1-10', 0, 11], ['11-50', 11, 51], ['51-200', 51, 201], ['201-500', 201, 501], ['501-1000', 501, 1001],
  ['1001-5000', 1001, 5001], ['5001-10000', 5001, 10001], ['10001+', 10001, INF],
];
/** Annual premium tiers (dollars). */
export const PREMIUM_TIERS: readonly Band[] = [
  ['<50K', 0, 50_000], ['50K-250K', 50_000, 250_000], ['250K-1M', 250_000, 1_000_000], ['1M-5M', 1_000_000, 5_000_000],
  ['5M-25M', 5_000_000, 25_000_000], ['25M+', 25_000_000, INF],
];
/** 401(k) plan asset tiers (dollars). */
export const ASSET_TIERS_401K: readonly Band[] = [
  ['<1M', 0, 1_000_000], ['1M-5M', 1_000_000, 5_000_000], ['5M-25M', 5_000_000, 25_000_000],
  ['25M-100M', 25_000_000, 100_000_000], ['100M+', 100_000_000, INF],
];
/** Number of broker relationships of a company. */
export const RELATIONSHIP_DENSITY: readonly Band[] = [['none', 0, 1], ['single', 1, 2], ['2-3', 2, 4], ['4+', 4, INF]];
/** Client-count bands of brokers and broker offices. */
export const CLIENT_COUNT_BANDS: readonly Band[] = [
  ['1-10', 0, 11], ['11-50', 11, 51], ['51-200', 51, 201], ['201-1000', 201, 1001], ['1001+', 1001, INF],
];
/** Annual commission tiers (dollars) of broker offices. */
export const COMMISSION_TIERS: readonly Band[] = [
  ['<100K', 0, 100_000], ['100K-500K', 100_000, 500_000], ['500K-2M', 500_000, 2_000_000], ['2M-10M', 2_000_000, 10_000_000],
  ['10M+', 10_000_000, INF],
];

export const BROKERAGE_CLASSES = ['national player', 'regional player', 'local broker'] as const;
export const FUNDING_STATUSES = ['Self-Funded', 'Fully Insured'] as const;
export const FORM_TYPES = ['5500', '5500-SF'] as const;
export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
] as const;
export const SENIORITIES = ['C-suite', 'VP-Director', 'Mid-Level', 'Entry-Level'] as const;
/**
 * Title words of each seniority (spec: seniority is "matched by title substring, so adjacent
 * titles can be included"): a contact matches its level's name in `seniority` or one of these
 * words or phrases in its title (whole words, so "CTO" is not found in "Director"); a phrase
 * after `!` excludes ("President" but not "Vice President"). Ingest computes the levels of each
 * contact once (`seniorityLevels`, the `seniority_levels` field), so the filter is one terms query.
 */
export const SENIORITY_TITLES: Record<(typeof SENIORITIES)[number], readonly string[]> = {
  'C-suite': ['chief', 'ceo', 'cfo', 'coo', 'cto', 'cio', 'chro', 'cmo', 'owner', 'founder', 'president!vice president', 'principal', 'managing partner'],
  'VP-Director': ['vice president', 'vp', 'svp', 'evp', 'avp', 'director', 'head of', 'controller', 'general counsel'],
  'Mid-Level': ['manager', 'supervisor', 'producer', 'consultant', 'account executive', 'sales executive', 'business partner', 'team lead'],
  'Entry-Level': ['assistant', 'coordinator', 'associate', 'specialist', 'administrator', 'generalist', 'accountant', 'analyst', 'clerk', 'intern', 'representative'],
};

/** The seniority levels of a contact: its `seniority` value and every level whose title words its title holds. */
export function seniorityLevels(seniority: unknown, title: unknown): string[] {
  const out = new Set<string>();
  if (typeof seniority === 'string' && (SENIORITIES as readonly string[]).includes(seniority)) out.add(seniority);
  if (typeof title === 'string' && title) {
    const words = ` ${title.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()} `;
    for (const level of SENIORITIES) {
      const hit = SENIORITY_TITLES[level].some((w) => {
        const [phrase, unless] = w.split('!');
        return words.includes(` ${phrase} `) && !(unless && words.includes(` ${unless} `));
      });
      if (hit) out.add(level);
    }
  }
  return [...out];
}
export const JOB_FUNCTIONS = [
  'HR', 'Benefits', 'Finance', 'Operations', 'Executive', 'Legal', 'IT', 'Sales', 'Marketing', 'Administration', 'Account Management',
] as const;
export const LEAD_TYPES = ['company', 'broker'] as const;
export const EMAIL_STATUSES = ['verified', 'unverified', 'catch-all', 'invalid'] as const;
export const FORM5500_ROLES = ['Plan Administrator', 'Sponsor', 'Signer', 'Trustee', 'Broker of Record', 'Agent', 'Contact'] as const;
/** Schedule A insurance lines. */
export const BENEFIT_TYPES = [
  'Medical', 'Dental', 'Vision', 'Life', 'Short-Term Disability', 'Long-Term Disability', 'Accident', 'Critical Illness',
  'Stop-Loss', 'Prescription Drug', 'EAP', 'Hospital Indemnity',
] as const;
export const CARRIERS = [
  'UnitedHealthcare', 'Aetna', 'Cigna', 'Anthem Blue Cross', 'Blue Cross Blue Shield of Texas', 'Kaiser Permanente',
  'Humana', 'Guardian Life', 'MetLife', 'Principal Financial Group', 'The Hartford', 'Lincoln Financial Group', 'Unum',
  'Sun Life', 'Mutual of Omaha', 'Delta Dental', 'VSP Vision Care', 'EyeMed', 'Aflac', 'Colonial Life', 'Highmark',
  'Florida Blue', 'Blue Shield of California', 'Harvard Pilgrim', 'Tufts Health Plan', 'Oscar Health', 'Ameritas',
  'Standard Insurance Company', 'Reliance Standard', 'Voya Financial',
] as const;

const DMA_BY_LOWER = new Map(DMAS.map((d) => [d.toLowerCase(), d]));
const DMA_MAX_COMMAS = Math.max(...DMAS.map((d) => d.split(',').length));

/**
 * A comma-separated DMA list. Some DMA names hold a comma themselves ("Rochester, NY"), so
 * segments are rejoined greedily: the longest run of segments that names a DMA wins.
 * Matching is case-insensitive; names come back in their canonical spelling.
 */
export function parseDmas(raw: string): { dmas: string[]; unknown: string[] } {
  const parts = raw.split(',').map((s) => s.trim());
  const dmas: string[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < parts.length; ) {
    if (!parts[i]) {
      i++;
      continue;
    }
    let taken = 0;
    for (let n = Math.min(DMA_MAX_COMMAS, parts.length - i); n >= 1 && !taken; n--) {
      const name = DMA_BY_LOWER.get(parts.slice(i, i + n).join(', ').toLowerCase());
      if (name) {
        dmas.push(name);
        taken = n;
      }
    }
    if (!taken) {
      unknown.push(parts[i]);
      taken = 1;
    }
    i += taken;
  }
  return { dmas, unknown };
}

/** A broker's lines of business on Schedule A: health and welfare contracts, pension (retirement) contracts. */
export const LINES_OF_BUSINESS: readonly string[] = ['welfare', 'retirement'];
