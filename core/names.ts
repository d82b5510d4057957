/**
 * Every name a namespace owns, in one place: Elasticsearch aliases, versioned indices, the CRM
 * index, the sandbox namespace and every Redis key. All start with the namespace, so tests, the
 * sandbox and several deployments can share one Elasticsearch and one Redis.
 *
 * Redis keys that one Lua script or MULTI touches together share a Redis Cluster hash tag
 * ({org:ID} or {u:ORG/USER}), so the design survives a move to Redis Cluster.
 */
import type { EntityName } from '../mappings/types.ts';

/** Namespace of the sandbox data that test keys read. */
export function sandboxNamespace(ns: string): string {
  return `${ns}-sandbox`;
}

/** The alias the API reads for an entity: `<ns>-<entity>`. */
export function aliasName(ns: string, entity: EntityName): string {
  return `${ns}-${entity}`;
}

/** A new version of an entity's index, `<alias>-v<timestamp>`; the timestamp sorts versions by creation. */
export function newIndexName(ns: string, entity: EntityName, now = new Date()): string {
  const ts = now.toISOString().replace(/[-:.TZ]/g, '');
  return `${aliasName(ns, entity)}-v${ts}`;
}

/** The wildcard matching every version of an entity's index. */
export const versionPattern = (ns: string, entity: EntityName): string => `${aliasName(ns, entity)}-v*`;

/** True when `index` is a version of the entity's index in this namespace (behind `aliasName`). */
export const isVersionOf = (index: string, ns: string, entity: EntityName): boolean => index.startsWith(`${aliasName(ns, entity)}-v`);

/** The index holding CRM lists (one document per organization and CRM). */
export const crmIndex = (ns: string): string => `${ns}-crm`;

export interface RedisKeys {
  /** API key record by secret hash (the only key auth reads): JSON. */
  keyBySecret(secretHash: string): string;
  /** Requests of a person (server/services/person.ts) in one rate-limit window, in the org's slot. */
  personRate(org: string, person: string, window: number): string;
  /** A revoked JWT (by the hash of its jti): kept until the token expires. */
  jwtRevoked(h: string): string;
  /** Every JWT of a user issued at or before this second (unix s) is revoked; the org's slot; kept (see revokeUserTokens). */
  jwtUserRevoked(org: string, user: string): string;
  /** API key record by id (listing, revoke, rotate): JSON. */
  key(id: string): string;
  /** Ids of every key of an organization (set). */
  orgKeys(org: string): string;
  /** The active child keys of a user (a set of ids, for its cap); the org's slot. */
  childKeys(org: string, user: string): string;
  /** The active keys of an organization, root and child (a set of ids, for its cap); the org's slot. */
  activeKeys(org: string): string;
  /** Child keys a user created on one UTC day (a counter, expires after the day); the org's slot. */
  keyCreations(org: string, user: string, day: string): string;
  /** Revoked keys of an organization by the time of revocation (sorted set, ms), for their purge; the org's slot. */
  revokedKeys(org: string): string;
  /** Credit pool of an organization, integer milli-credits. */
  credits(org: string): string;
  /** Usage counters of a key (hash: credits_milli, rows, queries), in the org's slot. */
  usage(org: string, keyId: string): string;
  /** Daily rows of a person (server/services/person.ts; reservations made before: a key id), expiring after the day. */
  dailyRows(org: string, person: string, day: string): string;
  /** Crawl-detection state of a person for one filter fingerprint (the set of pages served), in the org's slot (the debit script takes both). */
  crawl(org: string, person: string, fingerprint: string): string;
  /** Receipt of rows an organization paid for (a later identical delivery is a free cache hit), in the org's slot. */
  paid(org: string, delivery: string): string;
  /** An Idempotency-Key claim (paid jobs, reports, flags): `<id>|<fingerprint>` (server/services/claim.ts); the org's slot. */
  idemClaim(org: string, user: string, kind: string, key: string): string;
  /** Reservations not yet settled (hash: id → JSON entry), and the same ids by time (sorted set); the org's slot. */
  ledger(org: string): string;
  ledgerByTime(org: string): string;
  /** Organizations that ever reserved credits for a job (the sweeper walks these). */
  ledgerOrgs(): string;
  /** Ids of an organization's queued or running jobs of a kind that has a cap (async exports). */
  activeJobs(org: string, kind: string): string;
  /** Async export job of an organization (JSON), its list (sorted set by creation) and its settled flag. */
  exportJob(org: string, id: string): string;
  exportJobs(org: string): string;
  exportSettled(org: string, id: string): string;
  /** A writing job (JSON) of an organization and its settlement flag. */
  writingJob(org: string, id: string): string;
  writingSettled(org: string, id: string): string;
  /** A user's writing jobs by creation time: all of them (`all`), or one `status:<s>` or `channel:<c>`. */
  writingJobs(org: string, user: string, subset: string): string;
  /** Writing usage of an organization on a day (hash: `<channel>|<operation>|<measure>` → count or milli-credits). */
  writingUsage(org: string, day: string): string;
  /** Model usage of an organization on a day (hash: `<provider>|<model>|<measure>` → count). */
  aiCosts(org: string, day: string): string;
  /** Pub/sub channel announcing a writing job's new event (message: the job id). */
  writingEvents(): string;
  /** A saved writing record of an organization (JSON): kind identity, play, cta or subject; and the ids of the live ones by creation. */
  writingRecord(org: string, kind: string, id: string): string;
  writingRecords(org: string, kind: string): string;
  /**
   * Bug reports and review flags (kind report|flag): a record (JSON), its author's index (sorted set by
   * creation) in the org's slot (their Idempotency-Key claims are idemClaim's); the operator's index of every record
   * (sorted set) and which organization holds each id (hash) in the `{feedback}` slot.
   */
  feedback(org: string, kind: string, id: string): string;
  feedbackByUser(org: string, kind: string, user: string): string;
  /** The ids of an organization's open records of a kind (a set in its slot: the cap counts it). */
  feedbackOpen(org: string, kind: string): string;
  /** The open records of one kind one user of an organization filed (set of ids), in the organization's slot. */
  feedbackOpenBy(org: string, kind: string, user: string): string;
  feedbackAll(kind: string): string;
  feedbackOrgs(kind: string): string;
  /** A user's personal-play temperature override. */
  writingTemperature(scope: string): string;
  /** Account details of a user (hash: full_name, email, signature, title, company_name), for default senders. */
  userProfile(scope: string): string;
  /**
   * Prefix of the job queues (BullMQ): every key of a queue shares the `{jobs}` hash tag, so the
   * queue's scripts run on one Redis Cluster slot.
   */
  queuePrefix(): string;
  /** Tag records and indexes of one user. */
  tagRecord(scope: string, tagId: string): string;
  tagPair(scope: string, entityType: string, entityId: string, tag: string): string;
  tagEntities(scope: string, entityType: string, tag: string): string;
  tagNames(scope: string, entityType: string, entityId: string): string;
  tagIndex(scope: string): string;
  tagByName(scope: string, tag: string): string;
  /** Tag records of an organization (all users, both sides), counted against its cap (integer). */
  tagCount(org: string): string;
  /** Saved writing records of one kind created by one user (sorted set, like writingRecords), and a flag set once an organization's older records are indexed so. */
  writingRecordsBy(org: string, kind: string, user: string): string;
  writingRecordsByIndexed(org: string, kind: string): string;
  /** CRM context of an organization (hash: CRM name → JSON summary of its loaded list). */
  crm(org: string): string;
  /** Count cache and cursors of list queries. */
  count(fingerprint: string): string;
  cursor(fingerprint: string, page: number): string;
  /**
   * Data-derived filter options (values with counts) of one field of one concrete index: JSON.
   * Keyed by the index, so a load or reindex (the alias moves) reads fresh values.
   */
  filterOptions(index: string, field: string): string;
  /** Secret that signs page cursors (shared by every server of the namespace). */
  cursorSecret(): string;
  /** Prefix of everything in the namespace (tests clean up by it). */
  prefix(): string;
}

/** Key names for a namespace. */
export function redisKeys(ns: string): RedisKeys {
  const p = `${ns}:`;
  const org = (o: string) => `${p}{org:${o}}`;
  const user = (scope: string) => `${p}{u:${scope}}`;
  return Object.freeze({
    keyBySecret: (h: string) => `${p}{s:${h}}:apikey`,
    personRate: (o: string, who: string, w: number) => `${org(o)}:rl:${who}:${w}`,
    jwtRevoked: (h: string) => `${p}{s:${h}}:revoked`,
    jwtUserRevoked: (o: string, u: string) => `${org(o)}:jwt:revoked-before:${Buffer.from(u).toString('base64url')}`,
    key: (id: string) => `${p}apikey:id:${id}`,
    orgKeys: (o: string) => `${org(o)}:keys`,
    childKeys: (o: string, u: string) => `${org(o)}:children:u:${Buffer.from(u).toString('base64url')}`,
    activeKeys: (o: string) => `${org(o)}:keys:active`,
    keyCreations: (o: string, u: string, day: string) => `${org(o)}:keys:made:${Buffer.from(u).toString('base64url')}:${day}`,
    revokedKeys: (o: string) => `${org(o)}:keys:revoked`,
    credits: (o: string) => `${org(o)}:credits`,
    usage: (o: string, id: string) => `${org(o)}:usage:${id}`,
    dailyRows: (o: string, who: string, day: string) => `${org(o)}:daily:${who}:${day}`,
    // A set of page starts; the old name held a hash (a process still running the old code would meet WRONGTYPE).
    crawl: (o: string, who: string, fp: string) => `${org(o)}:crawl:pages:${who}:${fp}`,
    paid: (o: string, d: string) => `${org(o)}:paid:${d}`,
    idemClaim: (o: string, u: string, k: string, key: string) => `${org(o)}:idem:${k}:${Buffer.from(u).toString('base64url')}:${key}`,
    ledger: (o: string) => `${org(o)}:reservations`,
    ledgerByTime: (o: string) => `${org(o)}:reservations:at`,
    ledgerOrgs: () => `${p}{ledger}:orgs`,
    activeJobs: (o: string, k: string) => `${org(o)}:active:${k}`,
    exportJob: (o: string, id: string) => `${org(o)}:export:${id}`,
    exportJobs: (o: string) => `${org(o)}:exports`,
    exportSettled: (o: string, id: string) => `${org(o)}:export-settled:${id}`,
    queuePrefix: () => `${p}{jobs}`,
    writingJob: (o: string, id: string) => `${org(o)}:wjob:${id}`,
    writingSettled: (o: string, id: string) => `${org(o)}:wjob-settled:${id}`,
    writingJobs: (o: string, u: string, subset: string) => `${org(o)}:wjobs:${Buffer.from(u).toString('base64url')}:${subset}`,
    writingUsage: (o: string, day: string) => `${org(o)}:wusage:${day}`,
    aiCosts: (o: string, day: string) => `${org(o)}:aicost:${day}`,
    writingEvents: () => `${p}writing-events`,
    userProfile: (s: string) => `${user(s)}:profile`,
    writingRecord: (o: string, kind: string, id: string) => `${org(o)}:wrec:${kind}:${id}`,
    writingRecords: (o: string, kind: string) => `${org(o)}:wrecs:${kind}`,
    writingRecordsBy: (o: string, kind: string, u: string) => `${org(o)}:wrecs:${kind}:by:${Buffer.from(u).toString('base64url')}`,
    writingRecordsByIndexed: (o: string, kind: string) => `${org(o)}:wrecs:${kind}:by-indexed`,
    writingTemperature: (s: string) => `${user(s)}:temperature`,
    feedback: (o: string, k: string, id: string) => `${org(o)}:${k}:${id}`,
    feedbackByUser: (o: string, k: string, u: string) => `${org(o)}:${k}s:${Buffer.from(u).toString('base64url')}`,
    feedbackOpen: (o: string, k: string) => `${org(o)}:${k}-open`,
    feedbackOpenBy: (o: string, k: string, u: string) => `${org(o)}:${k}-open:${Buffer.from(u).toString('base64url')}`,
    feedbackAll: (k: string) => `${p}{feedback}:${k}s`,
    feedbackOrgs: (k: string) => `${p}{feedback}:${k}-orgs`,
    tagRecord: (s: string, id: string) => `${user(s)}:tag:${id}`,
    tagPair: (s: string, t: string, e: string, tag: string) => `${user(s)}:pair:${t}:${e}:${tag}`,
    tagEntities: (s: string, t: string, tag: string) => `${user(s)}:ents:${t}:${tag}`,
    tagNames: (s: string, t: string, e: string) => `${user(s)}:names:${t}:${e}`,
    tagIndex: (s: string) => `${user(s)}:tags`,
    tagByName: (s: string, tag: string) => `${user(s)}:byname:${tag}`,
    tagCount: (o: string) => `${org(o)}:tag-count`,
    crm: (o: string) => `${org(o)}:crm`,
    cursorSecret: () => `${p}cursor-secret`,
    count: (fp: string) => `${p}count:${fp}`,
    cursor: (fp: string, page: number) => `${p}cursor:${fp}:${page}`,
    filterOptions: (index: string, field: string) => `${p}fopt:${index}:${field}`,
    prefix: () => p,
  });
}
