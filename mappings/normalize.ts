/**
 * Normalization the analyzers of a bare Elasticsearch cannot do (no asciifolding, no
 * pattern filters): done in TypeScript at ingest and at query time, identically.
 */

const LEGAL_SUFFIXES = new Set([
  'inc', 'incorporated', 'llc', 'l l c', 'llp', 'lp', 'ltd', 'limited', 'corp', 'corporation', 'co', 'company', 'plc',
  'pc', 'pllc', 'pa', 'gmbh', 'sa', 'the', 'dba', 'lc', 'na',
]);

const NON_ASCII = /[^\x00-\x7f]/;
/** Latin letters that Unicode does not decompose into a base letter and a mark. */
const UNDECOMPOSED: Record<string, string> = { Đ: 'D', đ: 'd', Ł: 'L', ł: 'l', Ø: 'O', ø: 'o', ß: 'ss', Æ: 'AE', æ: 'ae', Œ: 'OE', œ: 'oe', Þ: 'Th', þ: 'th', ı: 'i', Ħ: 'H', ħ: 'h' };
const UNDECOMPOSED_RE = new RegExp(`[${Object.keys(UNDECOMPOSED).join('')}]`, 'g');

/** Lowercase, accents folded, punctuation to spaces, '&' to 'and', spaces collapsed. */
export function foldText(s: string): string {
  // Most names are ASCII: skip Unicode decomposition for them (it is the costly step).
  const base = NON_ASCII.test(s) ? s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(UNDECOMPOSED_RE, (c) => UNDECOMPOSED[c]) : s;
  return base
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** A name for matching: folded, with legal suffixes and a leading "the" removed. */
export function normalizeName(s: string): string {
  return normalizeFolded(foldText(s));
}

/** normalizeName of an already folded text (callers that need both fold once). */
export function normalizeFolded(folded: string): string {
  const words = folded.split(' ').filter(Boolean);
  while (words.length > 1 && LEGAL_SUFFIXES.has(words[words.length - 1])) words.pop();
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}

/** Damerau-free edit distance, capped (small words only). */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** A misspelt legal suffix ("comany", "incorprated", "lcc"): one edit for short ones, two for long. */
function nearSuffix(word: string): boolean {
  if (LEGAL_SUFFIXES.has(word)) return true;
  if (word.length < 3) return false;
  for (const s of LEGAL_SUFFIXES) {
    if (s.length < 3 || s.includes(' ')) continue;
    if (editDistance(word, s, 2) <= (s.length >= 7 ? 2 : 1)) return true;
  }
  return false;
}

/**
 * normalizeName for what a user typed: a trailing word that is a legal suffix with a typo is
 * dropped too (at query time only: at ingest a real word like "cop" must stay).
 */
export function normalizeQueryName(s: string): string {
  const words = foldText(s).split(' ').filter(Boolean);
  while (words.length > 1 && nearSuffix(words[words.length - 1])) words.pop();
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}

/** The normalized name without spaces, so "acmehealth" finds "Acme Health". */
export function compactName(s: string): string {
  return normalizeName(s).replace(/ /g, '');
}

/**
 * A bare host from a URL or domain: no scheme, no `www.`, no path, port, query or
 * trailing dot, lowercase. Returns '' when nothing host-like remains.
 */
export function normalizeDomain(s: string): string {
  let d = s.trim().toLowerCase();
  d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  d = d.replace(/^[^@/]*@/, '');
  d = d.split(/[/?#]/)[0].split(':')[0].replace(/\.$/, '');
  d = d.replace(/^www\d*\./, '');
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d) ? d : '';
}

/** A 9-digit EIN string from "12-3456789" or "123456789"; '' when not an EIN. */
export function normalizeEin(s: string): string {
  const digits = s.replace(/[\s-]/g, '');
  return /^\d{9}$/.test(digits) ? digits : '';
}

/**
 * What a user has typed of a website, as the start of a normalized domain (normalizeDomain of
 * a partial entry): no scheme, no `www.`, nothing from the first `/`, `?` or `#`, lowercase.
 * `https://www.acme.c` → `acme.c`, `www.acme` → `acme`; '' when nothing domain-like remains.
 */
export function domainPrefix(s: string): string {
  let d = s.trim().toLowerCase();
  d = d.replace(/^[a-z][a-z0-9+.-]*:\/\/?/, '').replace(/^\/+/, '');
  d = d.split(/[/?#]/)[0];
  d = d.replace(/^www\d*\./, '');
  return /^[a-z0-9][a-z0-9.-]*$/.test(d) ? d : '';
}
