/**
 * Person-name rules for the names on a Form 5500 (pure): which administrator and signer values
 * are people, and how a person's name splits into first and last. The rule, with examples, is in
 * docs/data.md (Form 5500 contacts); the measurement on real values is
 * test/ingest/form5500-people.test.ts.
 *
 * The rules look at structure, never at substrings inside a word: a legal form (INC, LLC, P.C.)
 * or "&" anywhere, an organisation noun (SERVICES, ASSOCIATES, COMMITTEE) as a word of the name,
 * and a few weaker nouns (CENTER, GROUP, TRUST, CHURCH, BANK) only in a name of three or more
 * words with no initial, so "JOHN CHURCH" and "WILLIAM B. CHURCH, JR." stay people.
 */

export interface PersonName {
  first: string;
  last: string;
  full: string;
}

const set = (words: string) => new Set(words.split(' '));

/** Legal forms and joiners: any of them anywhere makes the value an organisation. */
const LEGAL = set('inc incorporated llc llp lp ltd corp corporation co company pc pllc pa ps plc cpas of the and for');
/** Nouns that name an organisation, not a person, wherever they stand in the name. */
const ORG_NOUNS = set(
  'committee board trustees plan plans benefit benefits administrators administration services service association assoc associates ' +
    'consulting consultants payroll tpa management fund funds insurance department council union hospital university college school ' +
    'institute systems solutions technologies enterprises industries holdings international foundation chapter clinic medicine medical ' +
    'dental investments investment financial retirement pension trading construction communications communication specialists ' +
    'representatives manufacturers resources partners partnership agency employees employee',
);
/** Nouns that are also surnames: an organisation only in a name of 3+ words with no initial. */
const WEAK_ORG_NOUNS = set('trust group center centre bank church family law office offices city county valley health care capital express federal credit national community');
/** Words of a role or title: "JOHN SMITH, PRESIDENT", "JOHN SMITH - CFO", "JOHN SMITH (TRUSTEE)", or a value that is only a title. */
const ROLES = set(
  'president vice vp svp evp avp ceo cfo coo cto cio chro owner coowner partner principal trustee trustees manager member managing ' +
    'director secretary treasurer controller comptroller administrator admin chairman chair chairperson officer executive proprietor ' +
    'sole general agent authorized signer signatory hr human resources plan benefits payroll accountant attorney counsel founder ' +
    'employer sponsor fiduciary chief operating financial senior assistant specialist coordinator representative of and the',
);
const HONORIFICS = set('mr mrs ms miss mx dr prof rev hon sir fr');
/** Generational suffixes and degrees or credentials after a name (dots folded away: M.D. is md). */
const SUFFIXES = set('jr sr ii iii iv md dds dmd od dvm do phd edd jd esq cpa cfp cfa clu chfc sphr phr cebs qpa qka erpa ea mba ma rn np pe aif cpc ret');
/** Values that say no name was given. */
const NOT_NAMES = new Set(['same', 'same as above', 'same as sponsor', 'same as plan sponsor', 'none', 'n a', 'na', 'not applicable', 'see attached', 'see attachment', 'unknown', 'various', 'sponsor', 'employer']);
/** Surname particles: they stay part of the last name (VAN DER BERG, DE LA CRUZ, ST. JAMES). */
const PARTICLES = set('van von der den de del della dela di da dos das du la le st saint ten ter mc mac o');
/** Particles written apart that join the next word: MC DONALD → McDonald, O' BRIEN → O'Brien. */
const JOINERS = set('mc mac o');

const key = (w: string) => w.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]/g, '');
const isInitial = (w: string) => /^\p{L}\.?$/u.test(w);
const isWordOf = (words: string[], table: Set<string>) => words.length > 0 && words.every((w) => table.has(key(w)) || key(w) === '');

/** One word in title case: McDonald, O'Brien, Doe-O'Brien; initials and St. keep their dot. */
function titleWord(w: string): string {
  const lower = w.toLowerCase();
  const cased = lower.replace(/(^|[-'’])(\p{L})/gu, (_, p: string, c: string) => p + c.toUpperCase());
  return /^mc\p{L}{2,}/u.test(lower) ? `Mc${cased.charAt(2).toUpperCase()}${cased.slice(3)}` : cased;
}

/** The text with signature marks taken off: "/S/ JOHN SMITH", "S/JOHN SMITH", "JOHN SMITH /S/", "Electronically signed by ...". */
function unsign(text: string): string {
  return text
    .replace(/^(?:electronically\s+signed\s+by|e-?signed\s+by|signed\s+by|signature\s*:)\s*:?\s*/i, '')
    .replace(/\/s\//gi, ' ')
    .replace(/^s\/\s*/i, '')
    .replace(/\(?\s*electronically signed\s*\)?$/i, '')
    .trim();
}

/** Words of one comma part, honorifics and trailing suffixes or credentials removed. */
function nameWords(part: string): string[] {
  const words = part.split(' ').filter((w) => key(w) !== '');
  while (words.length > 1 && HONORIFICS.has(key(words[0]))) words.shift();
  while (words.length > 1 && SUFFIXES.has(key(words[words.length - 1]))) words.pop();
  return words;
}

/**
 * A signer's or administrator's name as a person, or null when it is not one. Signature marks,
 * honorifics, suffixes (JR, III), credentials (CPA, M.D.), titles after a comma or a spaced dash
 * and parenthesised roles are dropped; "LAST, FIRST M" is turned around; the last name keeps its
 * particles (VAN DER BERG, DI BONA); the first name is the first given name, or the second when
 * the first is only an initial ("S. MICHAEL RIZZUTO" → Michael); middle names and initials stay in
 * the full name only. All-caps names come out in title case. Null for organisations (a legal form,
 * "&", an organisation noun), for values that are only a title or a placeholder (SAME, N/A, SEE
 * ATTACHED), for digits and for a single word.
 */
export function splitPersonName(raw: string): PersonName | null {
  let text = unsign(raw.replace(/\s+/g, ' ').trim());
  if (!text || /\d/.test(text) || /&|\bc\/o\b/i.test(text)) return null;
  if (NOT_NAMES.has(text.toLowerCase().replace(/[^a-z]+/g, ' ').trim())) return null;
  if (text.split(/[\s,]+/).some((w) => LEGAL.has(key(w)))) return null;
  // Parenthesised roles, then a title after a spaced dash ("JOHN SMITH - CFO").
  text = text.replace(/\([^)]*\)?/g, ' ').replace(/\)/g, ' ').replace(/\s+/g, ' ').trim();
  const dashed = text.split(/\s+[-–—]+\s+/).map((s) => s.trim()).filter(Boolean);
  text = dashed.find((s) => !isWordOf(s.split(/[\s,]+/), ROLES)) ?? '';
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!parts.length) return null;
  let words = nameWords(parts[0]);
  const second = parts[1] ? nameWords(parts[1]) : [];
  const surnameOnly = words.length >= 1 && words.slice(0, -1).every((w) => PARTICLES.has(key(w)));
  const secondIsTail = !second.length || isWordOf(second, SUFFIXES) || isWordOf(second, ROLES) || isWordOf(second, HONORIFICS);
  if (parts.length >= 2 && surnameOnly && !secondIsTail && second.length <= 3) words = [...second, ...words];
  words = words.map((w) => (isInitial(w) || key(w) === 'st' ? w : w.replace(/\.+$/, '')));
  while (words.length > 2 && ROLES.has(key(words[words.length - 1]))) words.pop();
  if (words.length < 2 || isWordOf(words, ROLES) || !words.every((w) => /^[\p{L}][\p{L}'’.-]*$/u.test(w))) return null;
  const keys = words.map(key);
  if (keys.some((k) => ORG_NOUNS.has(k))) return null;
  if (words.length >= 3 && !words.some(isInitial) && keys.some((k) => WEAK_ORG_NOUNS.has(k))) return null;

  const upper = !/\p{Ll}/u.test(words.join(''));
  let shaped = words.map((w) => (upper ? titleWord(w) : w));
  // MC DONALD, MAC ARTHUR, O' BRIEN: one word.
  for (let i = shaped.length - 2; i >= 1; i--) {
    if (JOINERS.has(key(shaped[i])) && (key(shaped[i]) !== 'o' || /['’]$/.test(shaped[i]))) {
      const next = shaped[i + 1];
      shaped = [...shaped.slice(0, i), `${shaped[i]}${next.charAt(0).toUpperCase()}${next.slice(1)}`, ...shaped.slice(i + 2)];
    }
  }
  const n = shaped.length;
  if (n < 2) return null;
  // The last name starts at the last word, reaching back over particles; after a middle initial,
  // two or more full words are a compound surname (CARMEN L. JORDAN RIVERA).
  let start = n - 1;
  while (start - 1 >= 1 && PARTICLES.has(key(shaped[start - 1])) && !isInitial(shaped[start - 1])) start--;
  const lastInitial = shaped.reduce((at, w, i) => (i >= 1 && isInitial(w) ? i : at), -1);
  if (lastInitial >= 1 && n - 1 - lastInitial >= 2 && lastInitial + 1 < start) start = lastInitial + 1;
  const firstAt = isInitial(shaped[0]) && start > 1 && !isInitial(shaped[1]) && !PARTICLES.has(key(shaped[1])) ? 1 : 0;
  const last = shaped.slice(start).join(' ');
  // A first name and an initial ("DONALD R", a signature cut after the middle initial) is not a full name.
  if (isInitial(last) || last.replace(/[^\p{L}]/gu, '').length < 2) return null;
  return { first: shaped[firstAt].replace(/\.$/, ''), last, full: shaped.join(' ') };
}
