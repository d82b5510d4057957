/**
 * The generation context: seed keys, the reference date and the office layout. The
 * layout is the only state: small typed arrays (a few per broker and per office) that
 * tie offices to brokers in contiguous blocks, index offices by DMA for company-broker
 * relationships, and hold each broker's totals over its offices.
 */
import type { EntityName } from '../../mappings/types.ts';
import { brokerCore } from './brokers.ts';
import { RecentDays, epochDay } from './format.ts';
import { CITY_DMA, DMA_COUNT } from './geo.ts';
import { officeNumbers, officePlace } from './offices.ts';
import { entityKey, hashString } from './prng.ts';
import type { OrgName } from './orgnames.ts';

export interface Counts {
  companies: number;
  personnel: number;
  brokerOffices: number;
  brokers: number;
}

export interface Layout {
  /** Offices of broker b are firstOffice[b] .. firstOffice[b+1]-1. */
  firstOffice: Int32Array;
  officeBroker: Int32Array;
  /** City (index into CITIES) of each office. */
  officeCity: Int32Array;
  /** Offices of DMA d are dmaOffices[dmaStart[d] .. dmaStart[d+1]-1]. */
  dmaStart: Int32Array;
  dmaOffices: Int32Array;
  /** Broker totals over their offices. */
  clients: Float64Array;
  commissions: Float64Array;
  premiums: Float64Array;
  /** Commission-weighted growth: sum of commissions x growth, and the commissions weighed. */
  growthWeighted: Float64Array;
  growthWeight: Float64Array;
}

export interface Ctx {
  seed: number;
  counts: Counts;
  keys: Record<EntityName, number>;
  /** Offset of the EIN permutation. */
  einOffset: number;
  /** `last_updated_at` values: the 18 months before a reference date derived from the seed. */
  days: RecentDays;
  layout: Layout;
  /** Names given to the first companies (the tour's examples, GenerateOptions.named); the rest of each row as generated. */
  named: readonly OrgName[];
}

/** About 18 months of days. */
const UPDATE_SPAN_DAYS = 548;

export function createContext(seed: number, counts: Counts, named: readonly OrgName[] = []): Ctx {
  const h = hashString(`bintel-generate:${seed}`);
  // Reference date: within the second half of 2025, fixed per seed.
  const refDay = epochDay(2025, 7, 1) + (h % 180);
  const ctx: Ctx = {
    seed,
    counts,
    keys: {
      brokers: entityKey(seed, 'brokers'),
      'broker-offices': entityKey(seed, 'broker-offices'),
      companies: entityKey(seed, 'companies'),
      personnel: entityKey(seed, 'personnel'),
    },
    einOffset: h,
    days: new RecentDays(refDay, UPDATE_SPAN_DAYS),
    layout: emptyLayout(counts.brokers, counts.brokerOffices),
    named,
  };
  buildLayout(ctx);
  return ctx;
}

function emptyLayout(B: number, O: number): Layout {
  return {
    firstOffice: new Int32Array(B + 1),
    officeBroker: new Int32Array(O),
    officeCity: new Int32Array(O),
    dmaStart: new Int32Array(DMA_COUNT + 1),
    dmaOffices: new Int32Array(O),
    clients: new Float64Array(B),
    commissions: new Float64Array(B),
    premiums: new Float64Array(B),
    growthWeighted: new Float64Array(B),
    growthWeight: new Float64Array(B),
  };
}

/**
 * Offices per broker: every broker gets one when there are enough; the rest go to
 * national and regional players in proportion to their spread (largest remainder).
 */
function officeCounts(ctx: Ctx): Int32Array {
  const B = ctx.counts.brokers;
  const O = ctx.counts.brokerOffices;
  const counts = new Int32Array(B);
  if (O <= B) {
    for (let b = 0; b < O; b++) counts[b] = 1;
    return counts;
  }
  counts.fill(1);
  const extra = O - B;
  const weights = new Float64Array(B);
  let total = 0;
  for (let b = 0; b < B; b++) total += weights[b] = brokerCore(ctx, b).spread;
  if (total === 0) {
    weights.fill(1);
    total = B;
  }
  const frac = new Float64Array(B);
  let assigned = 0;
  for (let b = 0; b < B; b++) {
    const q = (extra * weights[b]) / total;
    const f = Math.floor(q);
    counts[b] += f;
    assigned += f;
    frac[b] = q - f;
  }
  const order = Array.from({ length: B }, (_, b) => b)
    .filter((b) => weights[b] > 0)
    .sort((a, b) => frac[b] - frac[a] || a - b);
  for (let k = 0; assigned < extra; k++, assigned++) counts[order[k % order.length]]++;
  for (let k = order.length - 1; assigned > extra; k--) {
    const b = order[((k % order.length) + order.length) % order.length];
    if (counts[b] > 1) {
      counts[b]--;
      assigned--;
    }
  }
  return counts;
}

function buildLayout(ctx: Ctx): void {
  const L = ctx.layout;
  const counts = officeCounts(ctx);
  const dmaCount = new Int32Array(DMA_COUNT);
  let o = 0;
  for (let b = 0; b < counts.length; b++) {
    L.firstOffice[b] = o;
    const n = counts[b];
    if (!n) continue;
    const core = brokerCore(ctx, b);
    for (let p = 0; p < n; p++, o++) {
      const { city } = officePlace(core, p, n);
      L.officeBroker[o] = b;
      L.officeCity[o] = city;
      dmaCount[CITY_DMA[city]]++;
      const nums = officeNumbers(ctx, o, core.cls);
      L.clients[b] += nums.clients;
      L.commissions[b] += nums.commissions;
      L.premiums[b] += nums.premiums;
      if (nums.growth !== null) {
        L.growthWeighted[b] += nums.commissions * nums.growth;
        L.growthWeight[b] += nums.commissions;
      }
    }
  }
  L.firstOffice[counts.length] = o;
  for (let d = 0; d < DMA_COUNT; d++) L.dmaStart[d + 1] = L.dmaStart[d] + dmaCount[d];
  const fill = L.dmaStart.slice(0, DMA_COUNT);
  for (let k = 0; k < o; k++) L.dmaOffices[fill[CITY_DMA[L.officeCity[k]]]++] = k;
}
