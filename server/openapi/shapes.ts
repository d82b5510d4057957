/**
 * Pieces of operation declarations several route files share (server/routes/*): schemas of a
 * response's data, the error statuses of a priced read and of a JSON body, paging parameters and
 * a record id in a path.
 */
import type { EntityDef } from '../../mappings/types.ts';
import { PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../read/request.ts';
import { pathParameter, type Parameter, type Schema } from './params.ts';
import { rowOf } from './schemas.ts';

export const array = (items: Schema): Schema => ({ type: 'array', items });
export const obj: Schema = { type: 'object' };
/** The data of a list asked with count_only=true: the count, no rows. */
export const COUNT_ONLY: Schema = { type: 'object', additionalProperties: false, required: ['total_count'], properties: { total_count: { type: 'integer', minimum: 0 } }, description: 'count_only=true: the count alone.' };
/** The data of a one-row read asked with dry_run=true: no row (meta holds the estimate). */
const DRY_RUN_ROW: Schema = { type: 'object', maxProperties: 0, description: 'dry_run=true: no row; meta holds the estimate.' };
/** One row, or nothing on a dry run. */
export const oneRow = (def: EntityDef): Schema => ({ anyOf: [rowOf(def), DRY_RUN_ROW] });
/** 400 parameters, 402 credits, 404 record: a priced read. */
export const PRICED = [400, 402, 404];
/** A JSON body: 400 invalid, 413 too large, 415 not JSON. */
export const BODY = [400, 413, 415];

/** The query of a paged list: `extra` filters, then `page` and `page_size`; `what` names the rows. */
export const pagedQuery = (what: string, extra: { properties: Record<string, Schema>; about: Record<string, string> } = { properties: {}, about: {} }) => ({
  schema: { properties: { ...extra.properties, page: { type: 'integer', minimum: 0, maximum: PAGE_MAX, default: 0 }, page_size: { type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT } } },
  about: { ...extra.about, page: 'Zero-based page.', page_size: `${what} per page.` },
});

/** The record id of a resource's path. */
export const idParam = (def: EntityDef): Parameter => pathParameter('id', `The ${def.label} id.`, { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' });
