/**
 * Typos a user makes when typing a name (shared by the search-quality test and
 * bench/search-quality.ts): deletion, transposition, neighbouring-key substitution, a missing
 * space, two typos, accents and legal suffix dropped. Deterministic with `rng`.
 */
const NEIGHBOURS: Record<string, string> = {
  a: 'qs', b: 'vn', c: 'xv', d: 'sf', e: 'wr', f: 'dg', g: 'fh', h: 'gj', i: 'uo', j: 'hk', k: 'jl', l: 'k', m: 'n', n: 'bm',
  o: 'ip', p: 'o', q: 'w', r: 'et', s: 'ad', t: 'ry', u: 'yi', v: 'cb', w: 'qe', x: 'zc', y: 'tu', z: 'x',
};

/** A deterministic PRNG so the sample and its typos are the same every run. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

export type Typo = (s: string, r: () => number) => string;
/** Positions inside words longer than 3 letters, away from the first letter. */
function pos(s: string, r: () => number): number {
  const idx = [...s].map((c, i) => (/[a-z]/i.test(c) && i > 0 && /[a-z]/i.test(s[i - 1]) ? i : -1)).filter((i) => i > 0);
  return idx[Math.floor(r() * idx.length)] ?? 1;
}
export const TYPOS: Record<string, Typo> = {
  deletion: (s, r) => {
    const i = pos(s, r);
    return s.slice(0, i) + s.slice(i + 1);
  },
  transposition: (s, r) => {
    const i = Math.min(pos(s, r), s.length - 2);
    return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
  },
  substitution: (s, r) => {
    const i = pos(s, r);
    const n = NEIGHBOURS[s[i].toLowerCase()] ?? 'e';
    return s.slice(0, i) + n[Math.floor(r() * n.length)] + s.slice(i + 1);
  },
  missing_space: (s) => s.replace(' ', ''),
  two_typos: (s, r) => TYPOS.substitution(TYPOS.deletion(s, r), r),
  no_accents_no_suffix: (s) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/,?\s+(Inc\.?|LLC|Corp\.?|Corporation|Co\.?|LP|LLP|Ltd\.?)$/i, ''),
};

