/**
 * CRM context of an organization: which companies (by EIN or website domain) are already in
 * its HubSpot or Salesforce. `bintel crm import` loads one CRM's list at a time, replacing
 * the previous one (a CRM export is a snapshot).
 *
 * The lists live in one Elasticsearch document per (org, CRM) in `<ns>-crm`, so list queries
 * match them with terms lookups inside Elasticsearch (no list crosses the wire per call), and
 * a small Redis hash per org says which CRMs are loaded (the context the API checks first).
 * The document is written before the hash and the hash is removed before the document, so
 * the API never points at a list that is not there.
 */
import type { Es } from '../../core/adapters/es.ts';
import type { RedisClient } from '../../core/adapters/redis.ts';
import { crmIndex, type RedisKeys } from '../../core/names.ts';

export const CRMS = ['hubspot', 'salesforce'] as const;
export type Crm = (typeof CRMS)[number];

/** Values of the `crm_status` filter. */
export const CRM_STATUSES = ['in_hubspot', 'in_salesforce', 'in_both', 'not_in_crm'] as const;
export type CrmStatus = (typeof CRM_STATUSES)[number];

/** Most EINs (and most domains) one CRM list may hold: the entity indices' max_terms_count. */
export const CRM_MAX_TERMS = 262_144;

export interface CrmList {
  eins: string[];
  domains: string[];
}

export interface CrmInfo {
  crm: Crm;
  eins: number;
  domains: number;
  imported_at: string;
  source: string;
}

/** What a query needs to match an org's CRM lists: where the lists are and which exist. */
export interface CrmContext {
  index: string;
  org: string;
  crms: Crm[];
}

export const crmDocId = (org: string, crm: Crm) => `${org}:${crm}`;

export class CrmService {
  constructor(
    private readonly redis: RedisClient,
    private readonly rk: RedisKeys,
    private readonly es: Es,
    private readonly ns: string,
  ) {}

  /** The CRMs loaded for an org, or null when it has no CRM context. */
  async context(org: string): Promise<CrmContext | null> {
    const crms = (await this.redis.hkeys(this.rk.crm(org))).filter((c): c is Crm => (CRMS as readonly string[]).includes(c)).sort();
    return crms.length ? { index: crmIndex(this.ns), org, crms } : null;
  }

  async list(org: string): Promise<CrmInfo[]> {
    const all = await this.redis.hgetall(this.rk.crm(org));
    return Object.values(all)
      .map((v) => JSON.parse(v) as CrmInfo)
      .sort((a, b) => a.crm.localeCompare(b.crm));
  }

  /** Replaces an org's list for one CRM. */
  async replace(org: string, crm: Crm, list: CrmList, source: string): Promise<CrmInfo> {
    if (list.eins.length > CRM_MAX_TERMS || list.domains.length > CRM_MAX_TERMS) {
      throw new RangeError(`a CRM list holds at most ${CRM_MAX_TERMS} EINs and ${CRM_MAX_TERMS} domains (got ${list.eins.length} and ${list.domains.length})`);
    }
    const index = crmIndex(this.ns);
    await this.ensureIndex(index);
    const info: CrmInfo = { crm, eins: list.eins.length, domains: list.domains.length, imported_at: new Date().toISOString(), source };
    // Terms lookups read the document with a realtime GET: no refresh is needed.
    await this.es.index({ index, id: crmDocId(org, crm), document: { org, crm, imported_at: info.imported_at, eins: list.eins, domains: list.domains } });
    await this.redis.hset(this.rk.crm(org), crm, JSON.stringify(info));
    return info;
  }

  /** Removes an org's list for one CRM; false when there was none. */
  async remove(org: string, crm: Crm): Promise<boolean> {
    const had = (await this.redis.hdel(this.rk.crm(org), crm)) > 0;
    await this.es.delete({ index: crmIndex(this.ns), id: crmDocId(org, crm) }, { ignore: [404] });
    return had;
  }

  private async ensureIndex(index: string): Promise<void> {
    if (await this.es.indices.exists({ index })) return;
    await this.es.indices.create(
      {
        index,
        settings: { number_of_shards: 1, auto_expand_replicas: '0-1' },
        // The lists are read from _source by terms lookups; nothing in them is searched.
        mappings: { dynamic: false, properties: { org: { type: 'keyword' }, crm: { type: 'keyword' }, imported_at: { type: 'date' } } },
      },
      { ignore: [400] },
    );
  }
}
