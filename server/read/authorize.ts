/**
 * Step 2 of the read pipeline: what the calling key may ask for, after every parameter is known
 * to be well formed. Field tiers (403 naming the parameter as the caller wrote it), internal-only
 * options, and the page-size policy. Pure: the key record is already in hand.
 */
import { fieldOf } from '../../mappings/index.ts';
import type { EntityDef, Tier } from '../../mappings/types.ts';
import { ApiError, forbidden, invalid } from '../errors.ts';
import type { KeyRecord } from '../services/keys.ts';
import { advancedAmong, assertFieldsAllowed, assertSortAllowed, keyTier } from '../services/tiers.ts';
import { narrows } from './filters.ts';
import { PAGE_SIZE_TEST_KEYS, PAGE_SIZE_UNFILTERED, type ListRequest } from './list-request.ts';
import { project, type Projection } from './projection.ts';
import type { ShapeRequest } from './request.ts';

/** What the key may receive for one read: the projection (its tier sets the price) and the key's tier. */
export interface Grant {
  projection: Projection;
  keyTier: Tier;
}

/** The tiers every read reports in meta. */
export const tierMeta = (g: Grant) => ({ response_tier: g.projection.tier, key_tier: g.keyTier });

/** Rows shaped as asked, if the key may see them (403 otherwise). */
export function authorizeShape(def: EntityDef, key: KeyRecord, shape: ShapeRequest): Grant {
  return { projection: project(def, key, shape), keyTier: keyTier(key, def) };
}

/** Resource filters on advanced-tier fields (has_phone, filing_year=<year>) need an advanced key. */
function assertOwnFiltersAllowed(key: KeyRecord, req: ListRequest): void {
  const advanced = req.own.filter((f) => narrows(f) && advancedAmong(key, req.def, f.filter.fields.map((x) => x.split('.')[0])).length > 0).map((f) => f.filter.param);
  if (advanced.length) {
    throw new ApiError('FORBIDDEN', `${advanced.join(', ')}: ${advanced.length > 1 ? 'filters' : 'a filter'} on advanced-tier fields; this key is basic`, advanced.map((param) => ({ field: param, issue: 'advanced_filter' })));
  }
}

/** page_size above 25 needs a business filter; test keys read at most 100 rows a page. */
function assertPageSizeAllowed(key: KeyRecord, req: ListRequest): void {
  if (req.pageSize > PAGE_SIZE_UNFILTERED && !req.businessFilters.length) {
    throw new ApiError('FILTER_REQUIRED', `page_size above ${PAGE_SIZE_UNFILTERED} needs at least one business filter (search, states, cf[...], ...)`, [{ field: 'page_size', issue: 'filter_required' }]);
  }
  if (key.key_type === 'test' && req.pageSize > PAGE_SIZE_TEST_KEYS) {
    throw invalid({ field: 'page_size', issue: 'out_of_range', expected: `1 to ${PAGE_SIZE_TEST_KEYS} for test keys` });
  }
}

/** Everything a list call asks for, checked against the key; the grant of its rows. */
export function authorizeList(key: KeyRecord, req: ListRequest): Grant {
  const { def } = req;
  assertOwnFiltersAllowed(key, req);
  assertSortAllowed(key, def, req.sortBy);
  assertFieldsAllowed(key, def, req.cf.map((c) => c.field.name), (n) => `cf[${n}]`);
  assertFieldsAllowed(key, def, req.eb.map((f) => f.name), (n) => `eb[${n}]`);
  const grant = authorizeShape(def, key, req.shape);
  // Filtering by signals reads the signals field: where it is advanced (personnel), so is the filter.
  if (req.signals.length && grant.keyTier !== 'advanced' && fieldOf(def, 'signals')?.tier === 'advanced') {
    throw forbidden(`signals on ${def.name} is an advanced-tier filter; this key is basic`, 'signals', 'advanced_filter');
  }
  assertPageSizeAllowed(key, req);
  if (req.explain && !key.internal) throw forbidden('explain is for internal tokens only', 'explain', 'internal_only');
  return grant;
}

/**
 * The tier a key needs to receive what a list request returns: advanced when its rows carry an
 * advanced field, and also when a key basic for the resource (same templates) would be refused
 * the request: an advanced sort or filter decides which rows come back, so the rows say
 * something of advanced data even when every column is basic. A stored result (an async export)
 * is read only by keys of at least this tier.
 */
export function tierNeeded(key: KeyRecord, req: ListRequest, grant: Grant): Tier {
  if (grant.projection.tier === 'advanced') return 'advanced';
  if (grant.keyTier === 'basic') return 'basic';
  const basicTwin: KeyRecord = { ...key, entity_field_tiers: { ...key.entity_field_tiers, [req.def.name]: 'basic' } };
  try {
    authorizeList(basicTwin, req);
    return 'basic';
  } catch {
    // Any refusal of the basic twin (the original key passed) is a tier refusal: the stricter answer.
    return 'advanced';
  }
}
