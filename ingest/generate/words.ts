/**
 * Words for organisation names: industry words by NAICS prefix, places, brand words,
 * legal suffixes; and the industry pick, weighted toward sectors common among benefit
 * plan sponsors (health care, professional services, manufacturing, construction, ...).
 */
import { CITIES, US_STATES } from '../../mappings/reference.ts';
import { INDUSTRIES } from '../../mappings/industries.ts';
import { type Rng, Weighted } from './prng.ts';

const list = (s: string): readonly string[] => Object.freeze(s.trim().split(/\s*\|\s*/));

/** Sector weights (first two NAICS digits) among Form 5500 welfare-plan sponsors. */
const SECTOR_WEIGHTS: Record<string, number> = {
  '62': 14, '54': 13, '31': 3, '32': 3.5, '33': 6, '23': 9, '44': 5, '45': 2.5, '52': 7, '42': 6, '81': 6, '72': 4,
  '56': 4, '48': 3.2, '49': 0.8, '53': 3, '51': 3, '61': 3, '71': 1.5, '11': 1, '21': 0.7, '22': 0.6, '55': 1.2, '92': 0.3,
};
/** Relative weight of common industry groups within their sector (default 1). */
const GROUP_WEIGHTS: Record<string, number> = {
  '6211': 5, '6212': 4, '6213': 3, '6216': 2, '6221': 1.5, '6231': 2, '6233': 2, '6241': 2, '6244': 2,
  '5411': 4, '5412': 3, '5413': 3, '5415': 3, '5416': 2.5, '2361': 2, '2362': 2, '2381': 2, '2382': 4, '2383': 2,
  '5242': 3, '5221': 2, '5239': 1.5, '7225': 5, '7211': 2, '8111': 3, '8131': 2, '8139': 2, '4411': 3, '4451': 2,
  '5613': 3, '5617': 3, '4841': 3, '4842': 2, '5312': 2, '5313': 2, '6111': 3, '6113': 2, '3323': 2, '3327': 2, '3328': 1.5,
};

const sectorSize = new Map<string, number>();
for (const i of INDUSTRIES) sectorSize.set(i.code.slice(0, 2), (sectorSize.get(i.code.slice(0, 2)) ?? 0) + (GROUP_WEIGHTS[i.code] ?? 1));

/** Weight of each industry (by index into INDUSTRIES): sector share, then group share within the sector. */
const INDUSTRY_WEIGHTS: readonly number[] = INDUSTRIES.map((ind) => {
  const sector = ind.code.slice(0, 2);
  return ((SECTOR_WEIGHTS[sector] ?? 0.2) * (GROUP_WEIGHTS[ind.code] ?? 1)) / (sectorSize.get(sector) ?? 1);
});

/** Industry indices (into INDUSTRIES), weighted as companies are. */
export const INDUSTRY_PICK = new Weighted(INDUSTRIES.map((_, i) => [i, INDUSTRY_WEIGHTS[i]] as const));
/** Industry labels weighted the same, leaving out the one label with a ';' (it cannot sit in a keywords list). */
export const LISTABLE_INDUSTRY_PICK = new Weighted(
  INDUSTRIES.map((ind, i) => [ind.label, ind.label.includes(';') ? 0 : INDUSTRY_WEIGHTS[i]] as const),
);

/** Name words by NAICS prefix; the longest matching prefix wins. */
const INDUSTRY_WORDS: Record<string, readonly string[]> = {
  '11': list('Farms | Ranch | Nursery | Orchards | Growers | Agriculture | Produce | Vineyards | Timber | Fisheries | Seed Company'),
  '1121': list('Cattle Company | Ranch | Dairy Farms | Livestock'),
  '21': list('Energy | Oil & Gas | Drilling | Resources | Mining | Aggregates | Exploration | Quarry | Sand & Gravel'),
  '22': list('Energy | Power | Electric Cooperative | Utilities | Water Company | Gas Company | Renewables'),
  '23': list('Construction | Builders | Contractors | Contracting'),
  '236': list('Homes | Builders | Construction | General Contractors | Development | Construction Management | Custom Homes | Building Company'),
  '237': list('Paving | Excavating | Utility Contractors | Civil Constructors | Earthworks | Site Development | Pipeline | Bridge Company'),
  '238': list('Electric | Plumbing | Mechanical | Roofing | HVAC | Heating & Air | Concrete | Drywall | Painting | Masonry | Glass & Glazing | Fire Protection | Flooring | Steel Erectors | Insulation | Plumbing & Heating'),
  '31': list('Manufacturing | Industries | Products | Foods | Packaging | Mills'),
  '311': list('Foods | Bakery | Meats | Dairy | Provisions | Food Company | Baking Company | Confections'),
  '312': list('Brewing Company | Beverages | Winery | Distillery | Bottling | Cellars'),
  '313': list('Textiles | Mills | Fabrics'),
  '315': list('Apparel | Garment Company | Uniforms'),
  '32': list('Manufacturing | Industries | Products | Materials | Packaging'),
  '321': list('Lumber | Wood Products | Millwork | Truss'),
  '322': list('Paper | Packaging | Corrugated | Containers'),
  '323': list('Printing | Graphics | Press | Print Solutions'),
  '325': list('Chemical | Coatings | Pharmaceuticals | Laboratories | Adhesives | Specialty Chemicals'),
  '326': list('Plastics | Rubber | Molding | Polymers'),
  '327': list('Concrete Products | Precast | Glass | Stone | Ceramics'),
  '33': list('Manufacturing | Industries | Technologies | Products | Components | Systems'),
  '331': list('Steel | Metals | Foundry | Castings | Alloys'),
  '332': list('Metal Works | Fabrication | Machine | Tool & Die | Precision | Machining | Manufacturing | Stamping | Welding'),
  '333': list('Machinery | Equipment | Industrial | Machine Company | Automation | Pump Company'),
  '334': list('Electronics | Instruments | Technologies | Semiconductor | Controls | Microsystems | Devices'),
  '335': list('Electric | Lighting | Controls | Power Systems'),
  '336': list('Aerospace | Automotive | Trailers | Marine | Vehicle Systems | Coach Works'),
  '337': list('Furniture | Cabinetry | Woodworks | Interiors | Fixtures'),
  '339': list('Medical Devices | Dental Lab | Signs | Jewelry | Sporting Goods'),
  '42': list('Supply | Distributors | Wholesale | Distribution | Trading Company | Supply Company | Sales'),
  '44': list('Stores | Outfitters | Hardware | Home Center | Furniture | Supply'),
  '441': list('Motors | Auto Group | Auto Sales | Automotive | Tire & Auto | Motorsports | RV Center'),
  '442': list('Furniture | Home Furnishings | Flooring | Mattress'),
  '444': list('Hardware | Lumber | Home Center | Garden Center | Building Supply'),
  '445': list('Market | Grocery | Foods | Supermarket | Fresh Market | Meats | Liquors'),
  '446': list('Pharmacy | Drugs | Apothecary | Health Mart | Optical'),
  '448': list('Apparel | Boutique | Clothiers | Shoes | Jewelers'),
  '45': list('Stores | Outfitters | Sporting Goods | Books | Music | Gifts | Trading Post'),
  '48': list('Trucking | Transport | Logistics | Freight | Express | Transportation | Moving & Storage | Carriers | Aviation | Bus Lines | Towing'),
  '49': list('Warehousing | Logistics | Delivery | Courier | Storage | Distribution Center'),
  '51': list('Media | Publishing | Communications | Broadcasting | Software | Networks | Data | Telecom | Studios | Press'),
  '52': list('Financial | Capital | Financial Group | Investments | Credit | Lending | Financial Services'),
  '522': list('Bank | Savings Bank | Credit Union | Bank & Trust | Mortgage | Lending | Federal Credit Union | State Bank'),
  '523': list('Capital | Investments | Wealth Management | Securities | Asset Management | Advisors | Capital Partners'),
  '524': list('Insurance Agency | Insurance Services | Insurance | Mutual Insurance | Title Company | Claims Services'),
  '53': list('Realty | Properties | Real Estate | Property Management | Rentals | Equipment Rental | Leasing | Land Company'),
  '54': list('Consulting | Associates | Partners | Services | Group'),
  '5411': list('Law | Law Group | Law Firm | Legal | Law Offices | Attorneys'),
  '5412': list('CPAs | Accounting | Tax & Accounting | Bookkeeping | Payroll Services | Accountants'),
  '5413': list('Engineering | Architects | Design Group | Surveying | Engineers | Architecture'),
  '5414': list('Design | Creative | Interiors | Design Studio'),
  '5415': list('Technologies | Software | IT Solutions | Systems | Data | Digital | Tech | Computing | Cyber'),
  '5416': list('Consulting | Advisors | Partners | Management Consulting | Strategies | Consulting Group'),
  '5417': list('Research | Labs | Biosciences | Scientific | Therapeutics | Bio'),
  '5418': list('Marketing | Media | Advertising | Communications | Creative | Brand Studio'),
  '5419': list('Veterinary Clinic | Animal Hospital | Photography | Translation Services | Pet Hospital | Veterinary Associates'),
  '55': list('Holdings | Enterprises | Group | Companies | Management | Capital Holdings'),
  '56': list('Staffing | Janitorial | Security | Facility Services | Building Services | Pest Control | Landscaping | Services'),
  '5613': list('Staffing | Personnel | Staffing Solutions | Workforce | Employment Services | Talent'),
  '5617': list('Janitorial | Cleaning | Facility Services | Building Maintenance | Pest Control | Landscaping | Lawn Care'),
  '562': list('Waste Services | Environmental | Disposal | Recycling | Sanitation'),
  '61': list('Academy | School | Learning Center | Institute | Montessori | Tutoring | Preparatory School | College'),
  '62': list('Health | Healthcare | Care | Health Services'),
  '6211': list('Family Medicine | Medical Group | Pediatrics | Internal Medicine | Orthopedics | Dermatology | Cardiology | Primary Care | Physicians | Urgent Care | Medical Associates | OB-GYN | Women\'s Health'),
  '6212': list('Dental | Family Dentistry | Dental Care | Orthodontics | Dental Group | Smiles | Oral Surgery | Pediatric Dentistry | Dental Arts'),
  '6213': list('Physical Therapy | Chiropractic | Eye Care | Optometry | Rehab | Speech Therapy | Counseling | Podiatry | Wellness'),
  '6214': list('Health Center | Surgery Center | Dialysis | Outpatient Center | Family Health Center'),
  '6215': list('Diagnostics | Imaging | Labs | Laboratories | Radiology'),
  '6216': list('Home Health | Home Care | Senior Care | Visiting Nurses | Hospice | Home Health Services'),
  '6219': list('Ambulance | Medical Transport | Blood Services | Health Services'),
  '622': list('Hospital | Medical Center | Health System | Regional Medical Center | Behavioral Health | Memorial Hospital'),
  '623': list('Nursing Home | Senior Living | Rehabilitation Center | Assisted Living | Care Center | Health & Rehab | Retirement Community'),
  '624': list('Family Services | Child Care | Learning Center | Community Services | Early Learning | Youth Services | Food Bank | Community Action'),
  '71': list('Fitness | Golf Club | Country Club | Entertainment | Theatre | Recreation | Athletic Club | Lanes | Marina | Museum'),
  '72': list('Hospitality | Restaurants | Dining'),
  '721': list('Hotel | Inn | Resort | Suites | Lodge | Hotels'),
  '722': list('Restaurant | Grill | Bistro | Café | Catering | Pizza | Kitchen | Tavern | Diner | Bakery | Steakhouse | Taquería | Brasserie | Cantina'),
  '81': list('Services | Repair | Auto Repair | Salon | Spa | Dry Cleaners | Car Wash'),
  '811': list('Auto Repair | Collision | Auto Service | Tire & Auto | Equipment Repair | Diesel Service | Repair'),
  '812': list('Salon | Spa | Dry Cleaners | Funeral Home | Laundry | Pet Grooming | Barbers'),
  '813': list('Foundation | Association | Church | Ministries | Society | Alliance | Union | Council'),
  '92': list('Housing Authority | Transit Authority | Water District | Port Authority | Fire District | Development Authority'),
};

/** Name words for an industry code: the longest listed NAICS prefix. */
export function industryWords(code: string): readonly string[] {
  return INDUSTRY_WORDS[code] ?? INDUSTRY_WORDS[code.slice(0, 3)] ?? INDUSTRY_WORDS[code.slice(0, 2)] ?? GENERIC_WORDS;
}

export const GENERIC_WORDS = list('Group | Holdings | Enterprises | Companies | Industries | Partners | Associates | Services | Solutions | International | Ventures');

export const BRAND_WORDS = list(`
Apex | Summit | Pinnacle | Keystone | Cornerstone | Vertex | Horizon | Meridian | Beacon | Legacy | Heritage | Pioneer |
Frontier | Liberty | Patriot | Eagle | Falcon | Phoenix | Titan | Atlas | Orion | Nova | Stellar | Vanguard | Sterling |
Premier | Prime | Elite | Allied | United | Integrity | Precision | Quality | Reliable | Superior | Advanced | Dynamic |
Strategic | Evergreen | Bluewater | Blue Sky | Redwood | Ironwood | Oakwood | Silver Oak | Lone Star | Sunbelt | Coastal |
Tri-County | Tri-State | Metro | Great Lakes | Gulf Coast | Piedmont | Tidewater | Northpoint | Crossroads | Gateway |
Landmark | Benchmark | Compass | Anchor | Lighthouse | Clearwater | Brightview | Bright Path | True North | NorthStar |
Silverline | Greenleaf | Blue Ridge | Red Rock | Stonebridge | Stonegate | Fairway | Riverbend | Windward | Paragon |
Synergy | Momentum | Catalyst | Fusion | Kinetic | Quantum | Vector | Zenith | Aspen | Sequoia | Cypress | Magnolia |
Juniper | Willow | Hawthorne | Sagebrush | Mesa | Sierra | Alpine | Cascade | Shoreline | Bayside | Lakeview | Parkside |
Hillcrest | Crestview | Fairview | Greenfield | Ironclad | Bedrock | Granite | Copperline | Blackstone | Whitewater |
Silver Creek | Bear Creek | Eagle Rock | Pine Ridge | Cedar Point | Oak Hollow | Maple Grove | Birchwood | Elmwood |
All-Star | First Choice | Five Star | Blue Line | Red Line | Golden Eagle | American | National | Continental | Universal |
Café Lumière | Belle Époque | Lumière | Château | Crème | Mañana | Señora | Piñata | Jalapeño | Über | Doña Rosa | Olé |
São Paulo | Côte | Fiesta Mágica | Niño | Alégria | Façade | Naïve | Rêve | Étoile | Soleil | Brûlée | Zürich
`);

/**
 * Coined brand names, the other long tail of company names ("Lumari", "Calova"; "Zenith"
 * is listed above): an onset, sometimes a middle syllable, and an ending.
 */
const BRAND_ONSETS = list(`
Vel | Zen | Cor | Nov | Ast | Lum | Ver | Syn | Quan | Aer | Cal | Dex | Ev | Fin | Gal | Hel | Ion | Kor | Lyr | Mer |
Nex | Ori | Pra | Rev | Sol | Tal | Ul | Vyn | Xan | Am | Bel | Cyr | Dav | El | Fal | Gen | Hal | Jov | Kin | Lux | Mav |
Nor | Om | Pel | Quin | Ros | Sen | Tor | Ux | Val | Wyn | Zyl | Ar | Bri | Cle | Dor | Ens | Fer | Gra | Inn | Ker | Lin
`);
const BRAND_MIDDLES = list('a | e | i | o | an | en | in | ar | er | or | el | il | ov | iv | ad');
const BRAND_ENDINGS = list(`
ora | ix | ium | ara | ent | iva | exa | ana | ova | ity | eon | ari | ondo | ique | yx | ant | ia | us | on | is | ta |
ex | ion | ent | ica | ado | ela | ona | ys | ea
`);

/** A brand word: one of the familiar ones, or (about half the time) a coined one. */
export function brandWord(rng: Rng): string {
  if (rng.chance(0.5)) return rng.pick(BRAND_WORDS);
  const onset = rng.pick(BRAND_ONSETS);
  const middle = rng.chance(0.4) ? rng.pick(BRAND_MIDDLES) : '';
  let ending = rng.pick(BRAND_ENDINGS);
  // No doubled vowel across the join ("Vela" + "ara").
  if (/[aeiouy]$/.test(onset + middle) && /^[aeiouy]/.test(ending)) ending = ending.slice(1);
  return onset + middle + ending;
}

export const PLACE_WORDS = list(`
Riverside | Lakeside | Hillside | Valley | Mountain | Prairie | Harbor | Canyon | Ozark | Appalachian | Chesapeake |
Potomac | Hudson Valley | Mohawk | Shenandoah | Cumberland | Ohio Valley | Rocky Mountain | Puget Sound | Delta |
Great Plains | High Plains | Big Sky | Red River | Missouri Valley | Lowcountry | Bluegrass | Heartland | Sun Valley |
Desert | Palmetto | Empire | Golden State | Hoosier | Buckeye | Badger | Granite State | Green Mountain | Pelican |
North Shore | South Shore | East Bay | West End | Midtown | Uptown | Northside | Southside | Westside | Eastside |
Tri-Valley | Twin Cities | Bay Area | Capital City | Gold Coast | Space Coast | Treasure Coast | Inland Empire |
Central Valley | Hill Country | Panhandle | Upstate | Downstate | Piedmont | Tidewater | Lake Country | River City
`);
/** City and state names usable in organisation names. */
export const CITY_WORDS: readonly string[] = [...new Set(CITIES.map((c) => c[0]))];
export const STATE_WORDS: readonly string[] = Object.values(US_STATES).filter((s) => !s.includes(' of ') && !s.startsWith('U.S.'));

/** Legal suffixes of company names (with their leading separator). */
const SUFFIX_PICK = new Weighted<string>([
  [' Inc.', 25], [', Inc.', 12], [' LLC', 28], [', LLC', 5], [' Corporation', 4], [' Corp.', 4], [' Co.', 3], [' Company', 3],
  [' Ltd.', 1], [' L.L.C.', 1], [' Incorporated', 1], [' LP', 1], ['', 12],
]);
/** Professional-practice suffixes (law, accounting, medicine). */
const PRACTICE_SUFFIX_PICK = new Weighted<string>([[', P.C.', 4], [' PLLC', 3], [', LLP', 4], [' P.A.', 2], [' LLC', 3], ['', 4]]);

const PRACTICE = /^(5411|5412|5413|6211|6212|6213|5419)/;

export function legalSuffix(rng: Rng, code: string): string {
  return PRACTICE.test(code) ? PRACTICE_SUFFIX_PICK.pick(rng) : SUFFIX_PICK.pick(rng);
}

/** Upper-case initials like "JRK" or "A&B". */
export function initials(rng: Rng): string {
  const L = 'ABCDEFGHJKLMNPRSTW';
  const n = rng.chance(0.7) ? 3 : 2;
  let s = '';
  for (let i = 0; i < n; i++) s += L[rng.int(0, L.length - 1)];
  return rng.chance(0.15) ? `${s[0]}&${s[1]}` : s;
}
