/**
 * Broker entity resolution, pure: Schedule A Part I lines (INS_BROKER_NAME and the US address)
 * resolved into firms, individual agents and placeholders, and into offices, with name AND
 * geography evidence. Keys are derived from canonical members only (never from row order), so the
 * same set of lines gives the same keys in every run and in any order. Rules and measured
 * precision/recall: docs/data.md ("Broker firms and offices: resolution"); labelled cases:
 * test/fixtures/form5500/broker-labels.json, test/ingest/form5500-broker-resolution.test.ts.
 */
import { foldText } from '../../mappings/normalize.ts';
import { cityKey } from './resolve.ts';

export interface BrokerLine {
  name: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
}

export interface Resolution {
  kind: 'firm' | 'agent' | 'placeholder';
  /** Firm cluster key ('' for a placeholder; for an agent, the firm whose office shares the agent's address when one exists in the input, else ''). */
  firm: string;
  /** Office cluster key, or null when the line has no usable US street and city. */
  office: string | null;
}

// ---------------------------------------------------------------------------------------------
// Names

/** Legal-form words dropped at the end of a name (and where the name is cut after one). */
const LEGAL = new Set([
  'inc', 'incorporated', 'llc', 'llp', 'lllp', 'lp', 'ltd', 'limited', 'corp', 'corporation', 'co', 'company', 'plc', 'pc', 'pllc', 'pa',
  'lc', 'na', 'dba',
]);
/** Legal-form words after which the rest of a name is a qualifier ("... INC NATIONAL INCENTIVE", "... INC - BOSTON"). */
const CUT_AFTER = new Set(['inc', 'incorporated', 'llc', 'llp', 'ltd', 'corp']);
/** Filers' abbreviations, as folded words. */
const ABBREV: Readonly<Record<string, string>> = {
  ins: 'insurance', insur: 'insurance', insurnce: 'insurance', insurances: 'insurance',
  agcy: 'agency', agy: 'agency', agncy: 'agency', agen: 'agency', agencies: 'agency',
  svcs: 'services', svc: 'services', srvcs: 'services', servs: 'services', service: 'services', sercives: 'services', serv: 'services',
  assoc: 'associates', assocs: 'associates', asso: 'associates', assoc_: 'associates', associate: 'associates', assocites: 'associates',
  assn: 'association',
  mgmt: 'management', mgt: 'management', mngmt: 'management',
  grp: 'group', grp_: 'group',
  finl: 'financial', fin: 'financial', finc: 'financial', finan: 'financial', financl: 'financial',
  '1st': 'first', '2nd': 'second', '3rd': 'third',
  natl: 'national', nat: 'national', intl: 'international', internat: 'international',
  bkge: 'brokerage', brkg: 'brokerage', brkge: 'brokerage', brokerages: 'brokerage',
  cnslt: 'consulting', cnsltg: 'consulting', consult: 'consulting', consultants: 'consulting', consultant: 'consulting',
  bnft: 'benefits', bnfts: 'benefits', benefit: 'benefits', bens: 'benefits',
  genl: 'general', gen: 'general', amer: 'american', ctr: 'center', cntr: 'center',
  partner: 'partners', ptnrs: 'partners', prtnrs: 'partners', underwriter: 'underwriters', advisor: 'advisors', adviser: 'advisors', advisers: 'advisors',
  solution: 'solutions', plan: 'plans', mktg: 'marketing', emp: 'employee', empl: 'employee', employees: 'employee', bros: 'brothers',
  cos: 'companies', corporate: 'corporate',
};
/** Words with no identifying power in an agency name. */
const GENERIC = new Set([
  'insurance', 'agency', 'services', 'group', 'benefits', 'financial', 'associates', 'association', 'consulting', 'brokerage', 'brokers', 'broker',
  'partners', 'management', 'planning', 'advisors', 'solutions', 'plans', 'marketing', 'underwriters', 'employee', 'health', 'life', 'risk',
  'and', 'of', 'the', 'a', 'an', 'at', 'for', 'in', 'by', 'national', 'american', 'america', 'united', 'first', 'second', 'premier', 'preferred',
  'professional', 'independent', 'general', 'mutual', 'capital', 'central', 'southern', 'northern', 'western', 'eastern', 'midwest', 'midwestern',
  'southwest', 'southwestern', 'northwest', 'northeast', 'southeast', 'pacific', 'atlantic', 'coastal', 'gulf', 'bay', 'valley', 'mountain', 'river',
  'lake', 'lakes', 'county', 'city', 'state', 'community', 'family', 'heritage', 'liberty', 'eagle', 'pioneer', 'summit', 'security', 'secure',
  'allied', 'associated', 'standard', 'farmers', 'citizens', 'peoples', 'home', 'metro', 'tri', 'north', 'south', 'east', 'west', 'main', 'street',
  'all', 'star', 'keystone', 'heartland', 'prairie', 'plains', 'sun', 'sunshine', 'golden', 'gold', 'silver', 'blue', 'green', 'red', 'white',
  'quality', 'select', 'superior', 'total', 'complete', 'integrated', 'strategic', 'benefit', 'employer', 'employers', 'business', 'commercial',
  'personal', 'pro', 'plus', 'one', 'usa', 'us', 'center', 'network', 'alliance', 'resources', 'enterprises', 'holdings', 'trust', 'companies',
  'agents', 'agent', 'office', 'offices', 'corporate', 'planners', 'wealth', 'investment', 'investments', 'retirement', 'dental', 'medical',
  'choice', 'advantage', 'smart', 'best', 'direct', 'new', 'old', 'great', 'grand', 'royal', 'crown', 'diamond', 'anchor', 'shield', 'guardian',
  'harbor', 'bridge', 'pointe', 'point', 'oak', 'pine', 'cedar', 'elm', 'maple', 'hill', 'hills', 'ridge', 'creek', 'park', 'county', 'town',
  'country', 'village', 'lincoln', 'washington', 'franklin', 'jefferson', 'madison', 'jackson', 'hometown', 'local', 'regional', 'global',
  'world', 'universal', 'international', 'integrity', 'trinity', 'providence', 'covenant', 'faith', 'hope', 'victory', 'freedom', 'patriot',
]);
/** The commonest US surnames: a name made of one of them and generic words is no evidence of one firm across states. */
const SURNAMES = new Set([
  'smith', 'johnson', 'williams', 'brown', 'jones', 'garcia', 'miller', 'davis', 'rodriguez', 'martinez', 'hernandez', 'lopez', 'gonzalez',
  'wilson', 'anderson', 'thomas', 'taylor', 'moore', 'martin', 'lee', 'perez', 'thompson', 'white', 'harris', 'sanchez', 'clark', 'ramirez',
  'lewis', 'robinson', 'walker', 'young', 'allen', 'king', 'wright', 'scott', 'torres', 'nguyen', 'hill', 'flores', 'green', 'adams', 'nelson',
  'baker', 'hall', 'rivera', 'campbell', 'mitchell', 'carter', 'roberts', 'gomez', 'phillips', 'evans', 'turner', 'diaz', 'parker', 'cruz',
  'edwards', 'collins', 'reyes', 'stewart', 'morris', 'morales', 'murphy', 'cook', 'rogers', 'gutierrez', 'ortiz', 'morgan', 'cooper', 'peterson',
  'bailey', 'reed', 'kelly', 'howard', 'ramos', 'kim', 'cox', 'ward', 'richardson', 'watson', 'brooks', 'chavez', 'wood', 'james', 'bennett',
  'gray', 'mendoza', 'ruiz', 'hughes', 'price', 'alvarez', 'castillo', 'sanders', 'patel', 'myers', 'long', 'ross', 'foster', 'jimenez',
]);
/** Words a person's name does not contain (the colourful generic words, such as "hill" or "madison", may be names). */
const NOT_PERSON = new Set([
  ...LEGAL, 'insurance', 'agency', 'services', 'group', 'benefits', 'financial', 'associates', 'association', 'consulting', 'brokerage', 'brokers',
  'broker', 'partners', 'management', 'planning', 'advisors', 'solutions', 'plans', 'marketing', 'underwriters', 'employee', 'health', 'life',
  'risk', 'and', 'of', 'the', 'for', 'national', 'american', 'america', 'united', 'first', 'premier', 'preferred', 'professional', 'independent',
  'general', 'mutual', 'capital', 'central', 'southern', 'northern', 'western', 'eastern', 'midwest', 'pacific', 'atlantic', 'one', 'usa', 'us',
  'center', 'network', 'alliance', 'resources', 'enterprises', 'holdings', 'trust', 'companies', 'agents', 'agent', 'office', 'corporate',
  'wealth', 'investment', 'investments', 'retirement', 'global', 'international', 'world', 'bank', 'university', 'college', 'hospital',
  'division', 'div', 'fund', 'funds', 'securities', 'digital', 'systems', 'technologies', 'tech', 'care', 'healthcare', 'hr', 'payroll',
  'strategies', 'partnership', 'exchange', 'brothers', 'sons', 'assurance', 'casualty', 'property', 'title', 'realty', 'mortgage', 'credit',
  'federal', 'benefit', 'bancorp', 'properties', 'administrators', 'administration', 'admin', 'tpa', 'dental', 'vision', 'county', 'city',
  'state', 'community', 'family', 'heritage', 'allied', 'associated', 'standard', 'farmers', 'citizens', 'peoples', 'employer', 'employers',
  'business', 'commercial', 'personal', 'total', 'strategic', 'integrated', 'select', 'quality', 'plus', 'pro', 'direct', 'choice', 'advantage',
  'inc', 'valley', 'metro', 'security', 'consultants', 'planners', 'underwriting', 'agencies', 'mgmt', 'grp', 'svcs',
]);
const PLACEHOLDERS = new Set([
  '', 'none', 'n a', 'na', 'not applicable', 'unknown', 'unk', 'see attached', 'see attachment', 'see attached schedule', 'see schedule',
  'see statement', 'see attached statement', 'attached', 'various', 'multiple', 'tbd', 'to be determined', 'no broker', 'no agent', 'none paid',
  'not available', 'n av', 'na na', 'null', 'nil', 'x', 'xx', 'xxx', 'xxxx', 'test', 'same', 'same as above', 'broker', 'agent', 'agents',
  'brokers', 'broker name', 'agent name', 'various brokers', 'various agents', 'multiple brokers', 'multiple agents', 'house', 'house account',
  'direct', 'no commissions', 'no commission', 'none reported', 'not reported', 'other', 'others', 'see note', 'see notes', 'information not provided',
]);
const US_STATES = new Set(('al ak az ar ca co ct de dc fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy pr gu vi').split(' '));
const CONNECTORS = new Set(['and', 'of', 'the', 'a', 'an', 'at', 'for', 'in', 'by', 'dba']);

/** Raw INS_BROKER_NAME values are cut at 35 characters: a name this long may be a prefix. */
const CUT_AT = 35;

export interface NameInfo {
  /** The name normalized for matching: abbreviations spelled out, suffixes, tags, qualifiers and dangling words dropped. */
  norm: string;
  kind: 'firm' | 'agent' | 'placeholder';
  /** The name's identifying power: false when it is generic words and at most a common surname ("FIRST AMERICAN INSURANCE AGENCY", "SMITH INSURANCE AGENCY"). */
  distinctive: boolean;
  /** Whether the raw name reaches the 35-character cut (its last word may be partial). */
  cut: boolean;
  /** For a person-like name, the name normalized as a firm's ("ARTHUR J GALLAGHER" is also a firm when that firm is in the input). */
  firmNorm: string;
}

function looksLikePerson(raw: string, tokens: readonly string[]): boolean {
  const words = tokens.filter((t) => t.length > 0);
  if (words.length < 2 || words.length > 4) return false;
  if (words.some((w) => !/^[a-z]+$/.test(w) || NOT_PERSON.has(w) || ABBREV[w] !== undefined)) return false;
  const long = words.filter((w) => w.length >= 2);
  if (long.length < 2) return false;
  // Initials only between or before names: "JASON M GREB", "J SMITH"; a trailing single letter is no person.
  if (words[words.length - 1].length === 1) return false;
  // A name entirely of generic or surname-like organization words is not evidence: keep the test to the raw text's shape.
  return !/[&/@]/.test(raw);
}

/** Normalizes one name and classifies it (pure; no geography). */
export function analyzeName(raw: string): NameInfo {
  const trimmed = raw.replace(/\s+/g, ' ').trim();
  const cut = trimmed.length >= CUT_AT - 1;
  // Parenthesized tags: "(NY)", "(US)", "(USA)", "(A DIVISION OF ...)" - a state or country tag is not part of the firm's name.
  let text = trimmed.replace(/\(\s*([A-Za-z.]{2,4})\s*\)/g, (m, t: string) => (US_STATES.has(t.replace(/\./g, '').toLowerCase()) || /^u\.?s\.?a?\.?$/i.test(t) ? ' ' : m));
  text = text.replace(/\(\s*[A-Za-z.]{2,4}\s*$/, ' '); // a tag cut at 35 characters: "... LLC(N"
  // ", A GALLAGHER COMPANY", ", AN ALERA GROUP COMPANY", ", A DIVISION OF ...": the name before the comma.
  text = text.replace(/,\s*(A|AN)\s+\S.*$/i, ' ');
  const folded = foldText(text);
  if (PLACEHOLDERS.has(folded) || !/[a-z]/.test(folded) || /^(see|refer to|per) (attach|schedule|statement|note)/.test(folded) || /^(none|n a|na|unknown|not applicable)\b/.test(folded) && folded.split(' ').length <= 3) {
    return { norm: '', kind: 'placeholder', distinctive: false, cut, firmNorm: '' };
  }
  let tokens = folded.split(' ').filter(Boolean);
  // "LAST, FIRST" is a person's name written surname first.
  const comma = trimmed.split(',').map((s) => s.trim()).filter(Boolean);
  const personTokens = comma.length === 2 && !LEGAL.has(foldText(comma[1])) ? foldText(`${comma[1]} ${comma[0]}`).split(' ').filter(Boolean) : tokens;
  // Single letters run together: "R S C" -> "rsc", "U S I" -> "usi".
  tokens = joinInitials(tokens);
  const person = looksLikePerson(trimmed, personTokens);
  tokens = tokens.map((t, i) => (t === 'corp' && i > 0 && i < tokens.length - 1 && !LEGAL.has(tokens[i + 1]) ? 'corporate' : ABBREV[t] ?? t));
  // "X DBA Y": the legal name X; "X A DIVISION OF Y": the division X.
  const dba = tokens.indexOf('dba');
  if (dba > 0) tokens = tokens.slice(0, dba);
  for (let i = 1; i < tokens.length - 1; i++) {
    if ((tokens[i] === 'division' || tokens[i] === 'div') && tokens[i + 1] === 'of') {
      tokens = tokens.slice(0, tokens[i - 1] === 'a' ? i - 1 : i);
      break;
    }
  }
  // A qualifier after an inner legal form: "GALLAGHER BENEFIT SERVICES INC NATIONAL INCENTIVE", "RSC ... INC - BOSTON".
  for (let i = 2; i < tokens.length - 1; i++) {
    if (CUT_AFTER.has(tokens[i])) {
      tokens = tokens.slice(0, i + 1);
      break;
    }
  }
  if (tokens[0] === 'the' && tokens.length > 1) tokens.shift();
  // Legal suffixes, a state tag written before one ("... NY LLC"), and words left dangling ("ARTHUR J GALLAGHER & CO" -> "... and").
  let stripped = false;
  for (;;) {
    const last = tokens[tokens.length - 1];
    if (tokens.length > 1 && LEGAL.has(last)) {
      tokens.pop();
      stripped = true;
    } else if (tokens.length > 2 && stripped && US_STATES.has(last) && !CONNECTORS.has(tokens[tokens.length - 2])) {
      tokens.pop();
      stripped = false;
    } else if (tokens.length > 1 && CONNECTORS.has(last)) tokens.pop();
    else break;
  }
  const norm = tokens.join(' ');
  const content = tokens.filter((t) => !GENERIC.has(t) && !CONNECTORS.has(t));
  const distinctive = content.length > 0 && !(content.length === 1 && (SURNAMES.has(content[0]) || content[0].length <= 2)) && norm.replace(/ /g, '').length >= 3;
  if (person) return { norm: personTokens.join(' '), kind: 'agent', distinctive, cut, firmNorm: norm };
  return { norm, kind: 'firm', distinctive, cut, firmNorm: norm };
}

function joinInitials(tokens: readonly string[]): string[] {
  const out: string[] = [];
  let run = '';
  const flush = () => {
    if (run.length === 1) out.push(run);
    else if (run) out.push(run);
    run = '';
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const single = t.length === 1 && /[a-z]/.test(t);
    const nextSingle = tokens[i + 1]?.length === 1 && /[a-z]/.test(tokens[i + 1]);
    if (single && (run || nextSingle)) run += t;
    else {
      flush();
      out.push(t);
    }
  }
  flush();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Addresses

const STREET_TYPES = new Set([
  'st', 'street', 'str', 'ave', 'avenue', 'av', 'blvd', 'boulevard', 'dr', 'drive', 'rd', 'road', 'pkwy', 'parkway', 'pky', 'ln', 'lane', 'ct', 'court',
  'pl', 'place', 'hwy', 'highway', 'sq', 'square', 'ter', 'terrace', 'cir', 'circle', 'plz', 'plaza', 'trl', 'trail', 'way', 'expy', 'expressway',
  'fwy', 'freeway', 'tpke', 'turnpike', 'pike', 'ctr', 'center', 'centre', 'crossing', 'xing', 'loop', 'row', 'run', 'pass', 'path', 'walk', 'aly', 'alley',
]);
const DIRECTIONS = new Set(['n', 's', 'e', 'w', 'ne', 'nw', 'se', 'sw', 'north', 'south', 'east', 'west', 'northeast', 'northwest', 'southeast', 'southwest']);
const UNIT_WORDS = new Set(['ste', 'suite', 'suit', 'unit', 'rm', 'room', 'apt', 'fl', 'floor', 'flr', 'bldg', 'building', 'dept', 'department', 'ms', 'mail', 'attn', 'attention', 'c', 'po', 'lockbox', 'box', 'pmb', 'lbby', 'lobby', 'tower', 'twr']);
const NUMBER_WORDS: Readonly<Record<string, string>> = { one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10' };
const ORDINALS: Readonly<Record<string, string>> = { first: '1st', second: '2nd', third: '3rd', fourth: '4th', fifth: '5th', sixth: '6th', seventh: '7th', eighth: '8th', ninth: '9th', tenth: '10th' };
const BOX_RE = /\b(?:p\s*o\s*box|po\s*box|pobox|pob|post\s*office\s*box|p\s*o\s*drawer|po\s*drawer|drawer|lock\s*box|lockbox|box)\s*#?\s*([a-z]?\d[\d-]*)\b/;

export interface AddressInfo {
  /** Street office: "number core" (suite, floor, directionals, street type, c/o and mail-stop lines ignored). */
  street: string;
  /** PO box / lockbox number when the line has one. */
  box: string;
  /** Unit text (suite/floor), kept only to prefer an exact match when an agent could attach to several firms. */
  unit: string;
  city: string;
  state: string;
}

/** Splits one address into the parts offices are keyed on. */
export function analyzeAddress(a: Pick<BrokerLine, 'address1' | 'address2' | 'city' | 'state'>): AddressInfo {
  const city = cityKey(a.city ?? '');
  const state = (a.state ?? '').trim().toUpperCase();
  const lines = [a.address1 ?? '', a.address2 ?? ''].flatMap((l) => l.split(/[,;]/)).map((l) => foldText(l.replace(/#/g, ' # '))).filter(Boolean);
  let box = '';
  let street = '';
  let spelled = '';
  let unit = '';
  for (const line of lines) {
    const m = BOX_RE.exec(line);
    if (m && !box) box = m[1].replace(/-/g, '').replace(/^0+(?=\d)/, '');
    const tokens = line.split(' ');
    const found = streetIn(tokens);
    if (found && !street) {
      street = found.street;
      unit = found.unit;
    } else if (!found && !spelled) {
      const s = streetIn(tokens.map((t) => NUMBER_WORDS[t] ?? t));
      if (s) spelled = s.street;
    } else if (!unit) unit = unitIn(tokens);
  }
  if (!street) street = spelled;
  return { street, box, unit, city, state };
}

function unitIn(tokens: readonly string[]): string {
  const i = tokens.findIndex((t) => t === 'ste' || t === 'suite' || t === 'fl' || t === 'floor' || t === 'unit' || t === 'rm' || t === 'room');
  if (i < 0) return '';
  const num = tokens[i + 1] ?? tokens[i - 1] ?? '';
  return num.replace(/\D/g, '');
}

/** The first "number street-words" run of a line: a number followed by a word that is not a unit marker. */
function streetIn(tokens: readonly string[]): { street: string; unit: string } | null {
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (!/^\d+[a-z]?$/.test(t) || (i > 0 && (UNIT_WORDS.has(tokens[i - 1]) || tokens[i - 1] === 'box'))) continue;
    const next = tokens[i + 1];
    if (!/[a-z]/.test(next) || UNIT_WORDS.has(next) || /^\d+(st|nd|rd|th)$/.test(next) && (tokens[i + 2] === 'fl' || tokens[i + 2] === 'floor' || tokens[i + 2] === 'flr')) continue;
    const core: string[] = [];
    let j = i + 1;
    for (; j < tokens.length; j++) {
      const w = tokens[j];
      if (UNIT_WORDS.has(w) || w === '#') break;
      if (core.length > 0 && /\d/.test(w) && !/^\d+(st|nd|rd|th)$/.test(w)) break;
      if (core.length > 0 && /^\d+(st|nd|rd|th)$/.test(w) && ['fl', 'floor', 'flr'].includes(tokens[j + 1])) break;
      core.push(ORDINALS[w] ?? w);
    }
    const words = core.filter((w) => !DIRECTIONS.has(w) && !STREET_TYPES.has(w));
    const kept = words.length > 0 ? words : core;
    if (kept.length === 0) continue;
    return { street: `${t.replace(/^0+(?=\d)/, '')} ${kept.join(' ')}`, unit: unitIn(tokens.slice(j)) };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Resolution

/** The office places of an address: by city and by ZIP (either matching is one office); [] when none. */
function placesOf(a: AddressInfo, zip5: string): string[] {
  if (!a.state || (!a.city && !zip5)) return [];
  const where = a.street || (a.box ? `box ${a.box}` : '');
  if (!where) return [];
  const out: string[] = [];
  if (a.city) out.push(`${a.state}|${a.city}|${where}`);
  if (zip5) out.push(`${a.state}|#${zip5}|${where}`);
  return out;
}

/** Index of the first element of a sorted array that is >= x. */
function lowerBound(sorted: readonly string[], x: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Union-find over interned strings: the root of a set is its smallest string, so roots depend on the sets only. */
class UnionFind {
  private ids = new Map<string, number>();
  private names: string[] = [];
  private parent: number[] = [];
  has(x: string): boolean {
    return this.ids.has(x);
  }
  private id(x: string): number {
    let i = this.ids.get(x);
    if (i === undefined) {
      i = this.names.length;
      this.ids.set(x, i);
      this.names.push(x);
      this.parent.push(i);
    }
    return i;
  }
  private root(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r];
    while (this.parent[i] !== r) {
      const next = this.parent[i];
      this.parent[i] = r;
      i = next;
    }
    return r;
  }
  find(x: string): string {
    return this.names[this.root(this.id(x))];
  }
  union(a: string, b: string): void {
    const ra = this.root(this.id(a));
    const rb = this.root(this.id(b));
    if (ra === rb) return;
    if (this.names[ra] < this.names[rb]) this.parent[rb] = ra;
    else this.parent[ra] = rb;
  }
}

/** A 5-digit ZIP, a 4-digit one that lost its leading zero padded ("2110" -> "02110" only when the state is in New England or NJ/PR). */
function zipOf(zip: string, state: string): string {
  const d = zip.replace(/\D/g, '');
  if (d.length >= 5) return d.slice(0, 5) === '00000' ? '' : d.slice(0, 5);
  if (d.length === 4 && /^(MA|RI|NH|ME|VT|CT|NJ|PR|VI)$/.test(state)) return `0${d}`;
  return '';
}

/**
 * Resolves distinct Schedule A Part I lines (the caller de-duplicates) into firms, agents and
 * placeholders, and offices. O(n log n): names are matched through one sorted list, addresses
 * through hash maps; keys depend on the set of lines, never on their order.
 */
export function resolveBrokers(lines: readonly BrokerLine[]): Resolution[] {
  const out: Resolution[] = new Array(lines.length);
  resolveBrokerLines(lines.length, (i) => lines[i], (i, r) => (out[i] = r));
  return out;
}

/** Line kinds as numbers, for the per-line arrays of resolveBrokerLines. */
const KIND_CODE: Readonly<Record<Resolution['kind'], number>> = { firm: 0, agent: 1, placeholder: 2 };

/**
 * resolveBrokers over lines read by index (`lineAt` may build each line anew on every call),
 * each resolution handed to `emit` (in state order, once per line), in a working set of one
 * state's lines: names are resolved over all lines first (firm keys are national), keeping per
 * line only its kind and firm key; then the offices and the agents' firms, state by state (every
 * place, and so every office and every agent's address match, lies within one state). The same
 * lines give the same resolutions as resolving them all at once.
 */
export function resolveBrokerLines(n: number, lineAt: (i: number) => BrokerLine, emit: (i: number, r: Resolution, line: BrokerLine) => void): void {
  const kinds = new Uint8Array(n);
  const firms: string[] = new Array(n).fill('');
  const states: string[] = new Array(n);
  const intern = new Map<string, string>();
  const shared = (s: string) => intern.get(s) ?? (intern.set(s, s), s);
  // What the states' pass needs of the names: the firm names an agent's c/o line may give.
  let careOf: { firms: ReadonlySet<string>; canon: (n: string) => string };
  {
    const nameCache = new Map<string, NameInfo>();
    const names: NameInfo[] = new Array(n);
    const cities: string[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const l = lineAt(i);
      let name = nameCache.get(l.name);
      if (!name) {
        name = analyzeName(l.name);
        nameCache.set(l.name, name);
      }
      names[i] = name;
      kinds[i] = KIND_CODE[name.kind];
      // The address's state and city as analyzeAddress gives them.
      states[i] = shared((l.state ?? '').trim().toUpperCase());
      cities[i] = shared(cityKey(l.city ?? ''));
    }
    nameCache.clear();

    // 0. A person-like name that is also a firm's name in the input ("ARTHUR J GALLAGHER" beside "ARTHUR J. GALLAGHER & CO.") is that firm.
    const firmNorms = new Set<string>();
    for (let i = 0; i < n; i++) if (kinds[i] === KIND_CODE.firm && names[i].norm) firmNorms.add(names[i].norm);
    for (let i = 0; i < n; i++) if (kinds[i] === KIND_CODE.agent && names[i].distinctive && firmNorms.has(names[i].firmNorm)) kinds[i] = KIND_CODE.firm;
    firmNorms.clear();
    const normOf = (i: number) => (kinds[i] === KIND_CODE.firm ? names[i].firmNorm : names[i].norm);

    // 1. Names cut at 35 characters join the one full name they are a prefix of (ambiguous: left alone).
    const norms = new Set<string>();
    const cutNorms = new Set<string>();
    for (let i = 0; i < n; i++) {
      if (kinds[i] !== KIND_CODE.firm || !normOf(i)) continue;
      norms.add(normOf(i));
      if (names[i].cut) cutNorms.add(normOf(i));
    }
    const distinctNorms = [...norms].sort();
    norms.clear();
    const canonical = new Map<string, string>();
    for (const nm of cutNorms) {
      if (nm.split(' ').length < 2) continue;
      const start = lowerBound(distinctNorms, nm);
      const targets: string[] = [];
      for (let i = start; i < distinctNorms.length && distinctNorms[i].startsWith(nm); i++) {
        if (distinctNorms[i] !== nm) targets.push(distinctNorms[i]);
        if (targets.length > 8) break;
      }
      if (targets.length === 0) continue;
      // Longer names that are themselves cuts of one another count once: all candidates must lie on one chain.
      const longest = targets.reduce((a, b) => (b.length > a.length || (b.length === a.length && b < a) ? b : a));
      if (targets.every((t) => longest.startsWith(t))) canonical.set(nm, longest);
    }
    const canon = (nm: string) => canonical.get(nm) ?? nm;

    // 2. Firm keys: a distinctive name is one firm in every state; a generic or surname-only name is one firm per state and city.
    const placesOfName = new Map<string, Set<string>>(); // generic name -> its firms with a place
    for (let i = 0; i < n; i++) {
      if (kinds[i] !== KIND_CODE.firm) continue;
      const nm = canon(normOf(i));
      firms[i] = shared(names[i].distinctive ? nm : `${nm}|${states[i]}|${cities[i]}`);
      if (!names[i].distinctive && (states[i] || cities[i])) (placesOfName.get(nm) ?? placesOfName.set(nm, new Set()).get(nm))?.add(firms[i]);
    }
    // A generic name filed with no address belongs to the one firm of that name that has a place, when there is one.
    for (let i = 0; i < n; i++) {
      if (kinds[i] !== KIND_CODE.firm || names[i].distinctive || states[i] || cities[i]) continue;
      const found = placesOfName.get(canon(normOf(i)));
      if (found?.size === 1) firms[i] = [...found][0];
    }
    placesOfName.clear();
    const distinctiveFirms = new Set<string>();
    for (let i = 0; i < n; i++) if (kinds[i] === KIND_CODE.firm && names[i].distinctive) distinctiveFirms.add(firms[i]);
    careOf = { firms: distinctiveFirms, canon };
  }
  intern.clear();

  // 3-4. Offices and agents' firms, one state at a time.
  const byState = new Map<string, number[]>();
  for (let i = 0; i < n; i++) (byState.get(states[i]) ?? byState.set(states[i], []).get(states[i]))?.push(i);
  for (const state of [...byState.keys()].sort()) {
    const rows = byState.get(state) as number[];
    byState.delete(state);
    resolveState(rows, lineAt, kinds, firms, careOf, emit);
  }
}

interface PlaceRow {
  i: number;
  kind: number;
  firm: string;
  addr: AddressInfo;
  places: string[];
}

/** Offices and the agents' firms of the lines of one state (places and offices never cross states). */
function resolveState(
  indices: readonly number[], lineAt: (i: number) => BrokerLine, kinds: Uint8Array, firms: readonly string[],
  careOf: { firms: ReadonlySet<string>; canon: (n: string) => string }, emit: (i: number, r: Resolution, line: BrokerLine) => void,
): void {
  const rows: PlaceRow[] = indices.map((i) => {
    const l = lineAt(i);
    const addr = analyzeAddress(l);
    const kind = kinds[i];
    return { i, kind, firm: firms[i], addr, places: kind === KIND_CODE.placeholder ? [] : placesOf(addr, zipOf(l.zip ?? '', addr.state)) };
  });

  // 3. Offices: one firm's places that share a street (or box) and a city or a ZIP are one office; a PO box joins the
  // firm's one street office in the same city. An office's key is the smallest place of its component.
  const uf = new UnionFind();
  const streetByCity = new Map<string, Set<string>>(); // firm \0 state|city -> street roots
  for (const r of rows) {
    if (r.kind !== KIND_CODE.firm) continue;
    const ps = r.places;
    for (let k = 1; k < ps.length; k++) uf.union(`${r.firm}\u0000${ps[0]}`, `${r.firm}\u0000${ps[k]}`);
    if (ps.length > 0) uf.find(`${r.firm}\u0000${ps[0]}`);
  }
  for (const r of rows) {
    if (r.kind !== KIND_CODE.firm || !r.addr.street || !r.addr.city || r.places.length === 0) continue;
    const k = `${r.firm}\u0000${r.addr.state}|${r.addr.city}`;
    let s = streetByCity.get(k);
    if (!s) streetByCity.set(k, (s = new Set()));
    s.add(uf.find(`${r.firm}\u0000${r.places[0]}`));
  }
  for (const r of rows) {
    if (r.kind !== KIND_CODE.firm || r.addr.street || !r.addr.box || r.places.length === 0) continue;
    const s = streetByCity.get(`${r.firm}\u0000${r.addr.state}|${r.addr.city}`);
    if (s && s.size === 1) uf.union(`${r.firm}\u0000${r.places[0]}`, [...s][0]);
  }
  streetByCity.clear();
  /** The office of a firm at one of these places: the component of the first place the firm has, else the first place. */
  const officeOf = (firm: string, places: readonly string[]): string | null => {
    if (places.length === 0) return null;
    const known = places.find((p) => uf.has(`${firm}\u0000${p}`)) ?? places[0];
    const root = uf.has(`${firm}\u0000${known}`) ? uf.find(`${firm}\u0000${known}`) : `${firm}\u0000${known}`;
    return `${firm}|${root.slice(firm.length + 1)}`;
  };

  // 4. Agents: the firm named on the agent's c/o line, else the firm with an office at the agent's address.
  const firmsAt = new Map<string, Set<string>>(); // place -> firms with an office there
  const unitsAt = new Map<string, Set<string>>(); // firm \0 place -> units
  for (const r of rows) {
    if (r.kind !== KIND_CODE.firm) continue;
    for (const p of r.places) {
      let s = firmsAt.get(p);
      if (!s) firmsAt.set(p, (s = new Set()));
      s.add(r.firm);
      const k = `${r.firm}\u0000${p}`;
      let u = unitsAt.get(k);
      if (!u) unitsAt.set(k, (u = new Set()));
      u.add(r.addr.unit);
    }
  }

  for (const r of rows) {
    const line = lineAt(r.i);
    const places = r.places;
    if (r.kind === KIND_CODE.placeholder) {
      emit(r.i, { kind: 'placeholder', firm: '', office: null }, line);
      continue;
    }
    if (r.kind === KIND_CODE.firm) {
      emit(r.i, { kind: 'firm', firm: r.firm, office: places.length ? officeOf(r.firm, places) : null }, line);
      continue;
    }
    let firm = careOfFirm(line, careOf.firms, careOf.canon);
    if (!firm) {
      const here = new Set<string>();
      for (const p of places) for (const f of firmsAt.get(p) ?? []) here.add(f);
      if (here.size > 0) {
        const all = [...here].sort();
        const exact = all.filter((f) => places.some((p) => unitsAt.get(`${f}\u0000${p}`)?.has(r.addr.unit)));
        firm = (exact.length > 0 ? exact : all)[0];
      }
    }
    emit(r.i, { kind: 'agent', firm, office: officeOf(firm, places) }, line);
  }
}

/** A firm named on an agent's address line ("COMPREHENSIVE WEALTH MGMT" above the street, "C/O NFP ... 340 MADISON AVENUE"). */
function careOfFirm(l: BrokerLine, firms: ReadonlySet<string>, canon: (n: string) => string): string {
  for (const raw of [l.address1, l.address2]) {
    if (!raw) continue;
    const text = raw.replace(/^\s*(c\s*\/\s*o|attn:?|care of)\s+/i, '');
    const before = text.split(/\s\d/)[0];
    if (!before || before.length < 3) continue;
    const n = analyzeName(before);
    if (n.kind === 'firm' && n.norm && firms.has(canon(n.norm))) return canon(n.norm);
  }
  return '';
}
