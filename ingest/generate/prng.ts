/**
 * Seeded randomness for the generator. Every row is a pure function of (seed, entity,
 * index): its generator is seeded from a hash of those, so any row can be recomputed on
 * its own (a contact recomputes its employer) and the output is byte-identical per seed.
 */

/** The murmur3 finalizer: a bijection on 32-bit integers with full avalanche. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of a string (FNV-1a, finalized). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

/** Mixes a 32-bit value into a key. For a fixed key it is a bijection of `value`. */
export function combine(key: number, value: number): number {
  return fmix32((key ^ fmix32((value + 0x9e3779b9) >>> 0)) >>> 0);
}

/** sfc32: a small, fast generator with 128 bits of state. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(a: number, b: number, c: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** A uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** A uniform float in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** A standard normal deviate (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A log-normal deviate with the given median and log-scale spread. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }
}

/** Per-entity key: every row of an entity is seeded from (key, index, stream). */
export function entityKey(seed: number, entity: string): number {
  return hashString(`${seed}\u0000${entity}`);
}

/**
 * The generator of one row. `stream` separates independent parts of a row (its core,
 * recomputed by children, and the rest), so each can be computed alone.
 */
export function rowRng(key: number, index: number, stream = 0): Rng {
  const k = combine(key, stream);
  const a = combine(k, index);
  return new Rng(a, combine(k ^ 0x5bd1e995, a), combine(k ^ 0x27d4eb2f, a ^ index));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex32(x: number): string {
  return HEX[x >>> 24] + HEX[(x >>> 16) & 255] + HEX[(x >>> 8) & 255] + HEX[x & 255];
}

/**
 * A UUID-shaped (version 4) id. The first 32 bits are a bijection of the index, so ids
 * of one entity and seed are always unique; the rest are keyed noise.
 */
export function uuid(key: number, index: number): string {
  const a = combine(key, index);
  const b = combine(key ^ 0x68e31da4, a);
  const c = combine(key ^ 0xb5297a4d, b);
  const d = combine(key ^ 0x1b56c4e9, c);
  const hb = hex32(b);
  const hc = hex32((c & 0x3fffffff) | 0x80000000);
  return `${hex32(a)}-${hb.slice(0, 4)}-4${hb.slice(5, 8)}-${hc.slice(0, 4)}-${hc.slice(4, 8)}${hex32(d)}`;
}

/** A bijection of a 32-bit index, as 8 hex digits: a unique, random-looking suffix. */
export function uniqueHex(key: number, index: number): string {
  return hex32(combine(key, index));
}

/** A weighted choice table: cumulative weights, picked by binary search. */
export class Weighted<T> {
  readonly items: readonly T[];
  private readonly cum: Float64Array;
  private readonly total: number;

  constructor(entries: readonly (readonly [T, number])[]) {
    if (!entries.length) throw new Error('a weighted table needs at least one entry');
    this.items = entries.map((e) => e[0]);
    this.cum = new Float64Array(entries.length);
    let t = 0;
    entries.forEach(([, w], i) => {
      t += Math.max(0, w);
      this.cum[i] = t;
    });
    this.total = t;
  }

  /** Index of a weighted pick. */
  index(rng: Rng): number {
    const x = rng.next() * this.total;
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cum[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  pick(rng: Rng): T {
    return this.items[this.index(rng)];
  }
}
