/**
 * Lookalike features: what makes two rows of an entity alike, declared once per entity (its
 * `lookalike` definition) and encoded at ingest into one `dense_vector` (element type byte,
 * cosine similarity) that POST /v1/lookalikes searches with approximate knn.
 *
 * Each feature is a block of the vector. Its values are one-hot (a fixed vocabulary), ordinal
 * (ordered bands: a band shares half its weight with each neighbour, so "51-200" is near
 * "201-500"), multi-hot (several values of a fixed vocabulary) or hashed (an open vocabulary,
 * values hashed into a few dimensions). Every block is scaled to unit length, then by the square
 * root of its weight, so the dot product of two vectors is the weighted sum of the blocks'
 * cosine similarities, and the cosine of the whole vectors is that sum over their norms: a
 * feature of weight 5 counts five times one of weight 1. A constant block keeps every vector
 * non-zero (cosine is undefined for the zero vector).
 *
 * The vector is not kept in `_source` (it would add about a kilobyte of JSON per row): the
 * seeds' vectors are re-encoded from their fields by the same code at query time.
 */
import type { Doc, EntityDef } from './types.ts';

/** How a feature's values become a block of the vector. */
export type FeatureKind =
  | { readonly kind: 'onehot'; readonly values: readonly string[] }
  | { readonly kind: 'ordinal'; readonly values: readonly string[] }
  | { readonly kind: 'multi'; readonly values: readonly string[] }
  | { readonly kind: 'hashed'; readonly dims: number };

export type LookalikeFeature = FeatureKind & {
  /** The feature's name (in `reasons`). */
  readonly name: string;
  /** The document field it reads (its tier decides whether a reason may show its value). */
  readonly field: string;
  /** The values of the field that count (default: the field's value or values as strings). */
  readonly pick?: (v: unknown) => unknown;
  /** Relative weight (see above). */
  readonly weight: number;
  /** What the feature is, for the documentation. */
  readonly description: string;
};

export interface LookalikeDef {
  readonly features: readonly LookalikeFeature[];
}

/** The vector field of an entity with lookalikes. */
export const LOOKALIKE_FIELD = 'lookalike_vector';
/** Weight of the constant block. */
const BIAS_WEIGHT = 0.05;
/** Byte vectors hold -128..127: the largest component is scaled to this. */
const BYTE_MAX = 127;
/** Share of a band's weight its neighbours get (ordinal features). */
const NEIGHBOUR = 0.5;

/** Number of dimensions of a feature's block. */
export const blockDims = (f: FeatureKind): number => (f.kind === 'hashed' ? f.dims : f.values.length);

/** Dimensions of an entity's vector (its blocks plus the constant one). */
export function lookalikeDims(def: LookalikeDef): number {
  return def.features.reduce((n, f) => n + blockDims(f), 1);
}

/** The values of a feature in a document, as strings (blank values left out). */
export function featureValues(f: LookalikeFeature, doc: Doc): string[] {
  const raw = f.pick ? f.pick(doc[f.field]) : doc[f.field];
  const list = Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const v of list) if (v !== null && v !== undefined && v !== '' && !out.includes(String(v))) out.push(String(v));
  return out;
}

/** FNV-1a, 32 bits: a stable hash of a value for hashed blocks. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Scratch space of writeBlock, reused (a block per feature per document was most of ingest's garbage). */
let scratch = new Float64Array(64);

/** Adds one feature's block (unit length times sqrt(weight)) at `at` of `out`. */
function writeBlock(f: LookalikeFeature, values: readonly string[], out: Float64Array, at: number): void {
  const dims = blockDims(f);
  if (scratch.length < dims) scratch = new Float64Array(dims);
  const block = scratch;
  block.fill(0, 0, dims);
  for (const v of values) {
    if (f.kind === 'hashed') block[fnv1a(v.toLowerCase()) % f.dims] += 1;
    else {
      const i = f.values.indexOf(v);
      if (i < 0) continue;
      block[i] = 1;
      if (f.kind === 'ordinal') {
        if (i > 0) block[i - 1] = Math.max(block[i - 1], NEIGHBOUR);
        if (i + 1 < dims) block[i + 1] = Math.max(block[i + 1], NEIGHBOUR);
      }
    }
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += block[i] * block[i];
  if (!norm) return;
  const scale = Math.sqrt(f.weight / norm);
  for (let i = 0; i < dims; i++) out[at + i] = block[i] * scale;
}

/** The weighted feature vector of a document, unquantized (see the module comment). */
export function featureVector(def: LookalikeDef, doc: Doc): Float64Array {
  const out = new Float64Array(lookalikeDims(def));
  let at = 0;
  for (const f of def.features) {
    writeBlock(f, featureValues(f, doc), out, at);
    at += blockDims(f);
  }
  out[at] = Math.sqrt(BIAS_WEIGHT);
  return out;
}

/** A vector scaled to signed byte components (cosine does not change with scale). */
function quantize(v: Float64Array): Int8Array {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max ? BYTE_MAX / max : 0;
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i] * scale);
  return out;
}

/** A vector scaled to byte components, as numbers (a knn query vector). */
export const toBytes = (v: Float64Array): number[] => Array.from(quantize(v));

/** A document's stored vector as bytes (what `lookalikeVector` sends, undecoded). */
export const vectorBytes = (def: LookalikeDef, doc: Doc): Int8Array => quantize(featureVector(def, doc));

/**
 * The stored vector of a document (ingest): its bytes hex-encoded, which Elasticsearch reads for
 * byte vectors (since 8.14): one string instead of an array of 273 numbers to build and serialize.
 */
export function lookalikeVector(def: LookalikeDef, doc: Doc): string {
  const b = vectorBytes(def, doc);
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
}

/**
 * The cosine of two byte vectors, as Elasticsearch computes it for a byte `dense_vector` (its
 * `_score` is (1 + cosine) / 2): the exact answer an approximate knn search is measured against.
 */
export function byteCosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** The cosine of a knn hit: Elasticsearch scores a cosine c as (1 + c) / 2. */
export const cosineOfScore = (score: number): number => 2 * score - 1;

/** A row and its cosine to the query. */
export interface Scored {
  readonly id: string;
  readonly score: number;
}

/**
 * How an approximate top `k` (`got`) compares with the exact ranking (`exact`, best first, at
 * least `k` rows): how many of the rows strictly above the k-th exact score it holds (rows tied
 * with it may fairly be either side), and the mean cosine of its rows over that of the exact top k.
 */
export function againstExact(exact: readonly Scored[], got: readonly Scored[], k: number): { found: number; expected: number; similarity: number } {
  const ids = new Set(got.map((r) => r.id));
  const must = exact.slice(0, k).filter((e) => e.score > exact[k - 1].score + 1e-6);
  const sum = (xs: readonly Scored[]) => xs.reduce((a, x) => a + x.score, 0);
  return { found: must.filter((e) => ids.has(e.id)).length, expected: must.length, similarity: sum(got) / sum(exact.slice(0, k)) };
}

/** The query of a set of seeds: the centroid of their unit-length vectors (each seed counts alike), as bytes. */
export function seedQuery(def: LookalikeDef, seeds: readonly Doc[]): number[] {
  const sum = new Float64Array(lookalikeDims(def));
  for (const s of seeds) {
    const v = featureVector(def, s);
    let norm = 0;
    for (const x of v) norm += x * x;
    const k = 1 / Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) sum[i] += v[i] * k;
  }
  return toBytes(sum);
}

/** Why a result is like the seeds: one feature it shares with them. */
export interface Reason {
  /** The feature (see the entity's lookalike definition). */
  feature: string;
  /** The field it reads. */
  field: string;
  /** same: a value the seeds have; adjacent: a band next to a seed's band (ordinal features). */
  match: 'same' | 'adjacent';
  /** The shared value (several for multi-valued features, at most 5). */
  value: string | string[];
  /** How many of the seeds have it. */
  seeds: number;
}

const MAX_REASON_VALUES = 5;

/**
 * The reasons of one result: every feature (heaviest first) where it has a value a seed has, or
 * for ordinal features a band next to a seed's band. `visible` says which fields the caller may
 * see (a basic key gets no reason built on an advanced-tier field).
 */
export function reasonsFor(def: LookalikeDef, row: Doc, seeds: readonly Doc[], visible: (field: string) => boolean): Reason[] {
  const out: { r: Reason; w: number }[] = [];
  for (const f of def.features) {
    if (!visible(f.field)) continue;
    const mine = featureValues(f, row);
    if (!mine.length) continue;
    const seedValues = seeds.map((s) => featureValues(f, s));
    const single = f.kind === 'onehot' || f.kind === 'ordinal';
    const shared = mine.filter((v) => seedValues.some((sv) => sv.some((x) => x.toLowerCase() === v.toLowerCase())));
    if (shared.length) {
      const n = seedValues.filter((sv) => sv.some((x) => shared.some((v) => v.toLowerCase() === x.toLowerCase()))).length;
      out.push({ r: { feature: f.name, field: f.field, match: 'same', value: single ? shared[0] : shared.slice(0, MAX_REASON_VALUES), seeds: n }, w: f.weight });
    } else if (f.kind === 'ordinal') {
      const i = f.values.indexOf(mine[0]);
      const near = (sv: string[]) => sv.some((x) => Math.abs(f.values.indexOf(x) - i) === 1);
      const n = i < 0 ? 0 : seedValues.filter(near).length;
      if (n) out.push({ r: { feature: f.name, field: f.field, match: 'adjacent', value: mine[0], seeds: n }, w: f.weight / 2 });
    }
  }
  return out.sort((a, b) => b.w - a.w).map((x) => x.r);
}

/** The document fields the features read (seeds and results are fetched with them). */
export const featureFields = (def: LookalikeDef): string[] => [...new Set(def.features.map((f) => f.field))];

/** The entities with lookalikes, and each one's definition. */
export const lookalikeOf = (def: EntityDef): LookalikeDef | undefined => def.lookalike;
