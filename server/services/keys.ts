/**
 * API keys: issued by the operator (CLI) or, for child keys, by a root key. Secrets are
 * random, prefixed by type, shown once; only their SHA-256 is stored.
 *
 * Two records per key. The key's record by id is the authority: its state, its scopes and the
 * hash of the one secret that works. A secret's record (by hash) only says which key the secret
 * belongs to. Authentication reads both: a secret is accepted only when the key's record names
 * its hash and is active (and, for a child key, its root's record is not revoked). Rotation,
 * revocation and budget changes are compare-and-set writes of the key's record, so whatever runs
 * at the same moment, in any process and on a Redis Cluster (where the two records live in
 * different slots), at most one secret of a key works, and none once a revoke has answered.
 */
import { utcDay } from '../../core/clock.ts';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { defineScript, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import type { KeyBudget } from './credits.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import { ENTITIES } from '../../mappings/index.ts';
import type { Tier } from '../../mappings/types.ts';
import { RETRY, compareAndSet } from '../cas.ts';
import { ALL_SCOPES, DATA_READ_SCOPES, isDataReadScope, isKnownScope, withoutRetired } from '../scopes.ts';
import { ApiError, forbidden, invalid, notFound, unauthorized } from '../errors.ts';

/** Key ids: `key_` and 20 hex digits (the document's key_id pattern). */
const KEY_ID_PREFIX = 'key_';
export const KEY_ID_PATTERN = `^${KEY_ID_PREFIX}[0-9a-f]{20}$`;

export const KEY_TYPES = ['live', 'test'] as const;
export type KeyType = (typeof KEY_TYPES)[number];
/** What a key is: rotated is what a superseded secret finds (the key itself goes on). */
export const KEY_STATES = ['active', 'revoked', 'rotated'] as const;
export type KeyState = (typeof KEY_STATES)[number];

export interface KeyRecord {
  id: string;
  org: string;
  user: string;
  name: string;
  key_type: KeyType;
  scopes: string[];
  field_tier: Tier;
  entity_field_tiers: Record<string, Tier>;
  field_tiers: Record<string, { basic: string[]; advanced: string[] }>;
  parent_id: string | null;
  internal: boolean;
  /** First characters of the secret, for recognising a key in lists. */
  secret_prefix: string;
  secret_hash: string;
  status: KeyState;
  created_at: string;
  revoked_at: string | null;
  rotated_at: string | null;
  /** A child key's credit budget (it still spends from the org's pool); absent or null: none. */
  budget?: KeyBudget | null;
}

/** What the API shows of a key: never the hash. */
export type PublicKey = Omit<KeyRecord, 'secret_hash'>;

export interface KeyWithSecret {
  key: PublicKey;
  secret: string;
}

const SECRET_RE = /^bk_(live|test)_[A-Za-z0-9]{40}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Rotated-out secrets answer "rotated" (not "unknown") for this long, then vanish. */
const ROTATED_TTL_S = 30 * 24 * 3600;
/** Organization and user ids (key records, JWT `org` and `sub`). */
export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;
/** Compare-and-set retries of one change of a key's record before the call answers 409. */
const CAS_ATTEMPTS = 50;

/**
 * A secret's record: the key it belongs to. Never changes; records written before the key's
 * record became the authority hold the whole key record, which has these two fields too.
 */
interface SecretRecord {
  id: string;
  parent_id: string | null;
}

function randomSecret(type: KeyType): string {
  const bytes = randomBytes(40);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % 62];
  return `bk_${type}_${s}`;
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
export const looksLikeSecret = (s: string) => SECRET_RE.test(s);

/** Default field lists per tier, from the entity definitions (copied into every key). */
function defaultFieldTiers(): Record<string, { basic: string[]; advanced: string[] }> {
  const out: Record<string, { basic: string[]; advanced: string[] }> = {};
  for (const def of ENTITIES) {
    const fields = def.fields.filter((f) => f.output !== false);
    out[def.name] = { basic: fields.filter((f) => f.tier !== 'advanced').map((f) => f.name), advanced: fields.filter((f) => f.tier === 'advanced').map((f) => f.name) };
  }
  return out;
}

export const publicKey = ({ secret_hash: _h, ...rest }: KeyRecord): PublicKey => rest;

/** A budget given in credits (up to 3 decimals) as milli-credits; absent or null: no limit of that kind. */
function budgetOf(b: { total?: number | null; daily?: number | null }): KeyBudget {
  const milli = (field: string, v: number | null | undefined) => {
    if (v === undefined || v === null) return null;
    const m = Math.round(v * 1000);
    if (!Number.isFinite(v) || v < 0 || Math.abs(m - v * 1000) > 1e-6) throw invalid({ field: `budget.${field}`, issue: 'invalid_number', expected: 'credits, 0 or more, at most 3 decimals' });
    return m;
  };
  return { total_milli: milli('total', b.total), daily_milli: milli('daily', b.daily) };
}

export interface CreateKeyInput {
  org: string;
  user: string;
  name?: string;
  key_type?: KeyType;
  field_tier?: Tier;
  scopes?: string[];
  internal?: boolean;
}

/** Compare-and-set of one key's record: KEYS = the record; ARGV = the JSON read, the JSON to write. 1 when written. */
const COMPARE_AND_SET = defineScript<number, [read: string, next: string]>({
  name: 'keys:cas',
  keys: 1,
  lua: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`,
});

/**
 * A child key's place among its user's and its organization's keys, with the caps, in one
 * script (parallel creations never pass a cap): KEYS = the user's active children, the org's
 * active keys, the org's key list, the user's creations today; ARGV = the per-user cap, the org
 * cap, the creations cap, the child's id, the counter's lifetime (s). 1 when added; -1, -2, -3
 * when the user's, the organization's or the day's cap is reached (nothing written).
 */
const ADD_CHILD = defineScript<number, [maxChildKeys: number, maxOrgKeys: number, maxCreationsPerDay: number, id: string, counterTtlS: number]>({
  name: 'keys:add-child',
  keys: 4,
  lua: `
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[1]) then return -1 end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return -2 end
if tonumber(redis.call('GET', KEYS[4]) or '0') >= tonumber(ARGV[3]) then return -3 end
redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], tonumber(ARGV[5]))
redis.call('SADD', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[4])
return 1
`,
});

/** Key records kept parsed per process (by key id): a request whose stored record is unchanged skips the parse. */
const PARSED_MAX = 10_000;

/** Freezes a parsed record and what it holds: one object serves every request of the key. */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** The bounds of an organization's key records (core/config.ts names their settings and defaults). */
export interface KeyCaps {
  /** Active child keys of one user. */
  maxChildKeys?: number;
  /** Active keys of one organization, root keys included (the operator's root keys are never refused). */
  maxOrgKeys?: number;
  /** Child keys one user may create per UTC day. */
  maxCreationsPerDay?: number;
  /** Seconds a revoked key's records are kept before they are purged. */
  revokedRetentionS?: number;
}

/** Revoked keys purged per call (list, creation): a bounded step, the rest at the next call. */
const PURGE_BATCH = 100;

export class KeyService {
  /**
   * The last record parsed for each key id, with the JSON it came from. Redis still answers
   * every request (revocation and scope changes take effect at once in every process); only an
   * identical JSON reuses the parsed, frozen record.
   */
  private readonly parsed = new Map<string, { json: string; rec: KeyRecord }>();
  /** The key each secret (by hash) named when last seen, with its secret record's JSON (see authenticateHash). */
  private readonly secretIds = new Map<string, { id: string; parentId: string | null; json: string }>();
  private readonly caps: Required<KeyCaps>;

  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys, caps: KeyCaps = {}) {
    this.caps = { maxChildKeys: 100, maxOrgKeys: 1_000, maxCreationsPerDay: 100, revokedRetentionS: 30 * 86_400, ...caps };
  }

  /**
   * Whether a verified JWT is revoked: by its jti, or with every token of its user issued until
   * then (`iat` null: a token without iat is taken as issued before any revocation of its user).
   * Two reads in the same tick. (Its rate window is its user's: services/rate.ts.)
   */
  async tokenRevoked(jti: string, owner: { org: string; user: string; iat: number | null }): Promise<boolean> {
    const [one, before] = await Promise.all([this.redis.exists(this.keys.jwtRevoked(hashSecret(`jwt:${jti}`))), this.redis.get(this.keys.jwtUserRevoked(owner.org, owner.user))]);
    if (one === 1) return true;
    return before !== null && (owner.iat === null || owner.iat <= Number(before));
  }

  /**
   * Revokes a JWT by its jti until its `exp` (unix s) and a minute of clock skew after: refused at
   * once in every process, for as long as it could ever be accepted (a token whose validity is
   * post-dated included).
   */
  async revokeToken(jti: string, expS: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(expS - Date.now() / 1000) + 60);
    await this.redis.set(this.keys.jwtRevoked(hashSecret(`jwt:${jti}`)), '1', 'EX', ttl);
  }

  /**
   * Revokes every JWT of a user issued at or before this second (by its iat; a token without iat
   * is revoked too, its issue time being unknown). The mark is kept, not expired: a token's
   * validity may be post-dated, so no lifetime bounds when one issued before it can come; a
   * later revocation moves it on. Returns the second.
   */
  async revokeUserTokens(org: string, user: string): Promise<number> {
    const before = Math.floor(Date.now() / 1000);
    await this.redis.set(this.keys.jwtUserRevoked(org, user), String(before));
    return before;
  }

  /** Issues a root key (operator). */
  async createRoot(input: CreateKeyInput): Promise<KeyWithSecret> {
    for (const [field, v] of [['org', input.org], ['user', input.user]] as const) {
      if (!ID_RE.test(v)) throw invalid({ field, issue: 'invalid_format', expected: 'letters, digits and _ . @ - (at most 64)' });
    }
    const scopes = withoutRetired(input.scopes ?? [...ALL_SCOPES]);
    const unknown = scopes.filter((s) => !isKnownScope(s));
    if (unknown.length) throw invalid({ field: 'scopes', issue: 'unknown_scope', expected: ALL_SCOPES });
    const tier = input.field_tier ?? 'advanced';
    return this.insert({
      org: input.org,
      user: input.user,
      name: input.name ?? 'root key',
      key_type: input.key_type ?? 'live',
      scopes: [...new Set(scopes)],
      field_tier: tier,
      entity_field_tiers: Object.fromEntries(ENTITY_NAMES.map((e) => [e, tier])),
      field_tiers: defaultFieldTiers(),
      parent_id: null,
      internal: input.internal ?? false,
    });
  }

  /**
   * Issues a child key of `parent`: data-read scopes only, and only ones the parent holds;
   * tier templates copied from the parent; its tier no higher than the parent's.
   */
  async createChild(parent: KeyRecord, body: { scopes: string[]; name?: string; key_type?: KeyType; field_tier?: Tier; budget?: { total?: number; daily?: number } }): Promise<KeyWithSecret> {
    if (parent.parent_id !== null) throw forbidden('Only a root key can create keys', 'authorization', 'not_root_key');
    const notData = body.scopes.filter((s) => !isDataReadScope(s));
    if (notData.length) throw invalid({ field: 'scopes', issue: 'not_a_data_read_scope', expected: DATA_READ_SCOPES }, `scopes: ${notData.join(', ')} cannot be given to a child key (data-read scopes only)`);
    const notHeld = body.scopes.filter((s) => !parent.scopes.includes(s));
    if (notHeld.length) throw forbidden(`The parent key does not hold ${notHeld.join(', ')}`, 'scopes', 'scope_not_held_by_parent');
    const tier = body.field_tier ?? parent.field_tier;
    if (tier === 'advanced' && parent.field_tier !== 'advanced') throw forbidden('A child key cannot have a higher field tier than its parent', 'field_tier', 'tier_above_parent');
    const created = await this.insert({
      org: parent.org,
      user: parent.user,
      name: body.name ?? 'child key',
      key_type: body.key_type ?? parent.key_type,
      scopes: [...new Set(body.scopes)],
      field_tier: tier,
      entity_field_tiers: Object.fromEntries(Object.entries(parent.entity_field_tiers).map(([e, t]) => [e, tier === 'basic' ? 'basic' : t])),
      field_tiers: structuredClone(parent.field_tiers),
      parent_id: parent.id,
      internal: false,
      ...(body.budget ? { budget: budgetOf(body.budget) } : {}),
    });
    // A root revoked while this ran may have listed its children before this one was added.
    if ((await this.get(parent.id))?.status !== 'active') {
      await this.revoke(created.key);
      throw unauthorized('revoked_key', 'This API key has been revoked');
    }
    return created;
  }

  /** Sets (or, both null, clears) a child key's credit budget: a compare-and-set of the key's current record (`rec` names the key). */
  async setBudget(rec: KeyRecord, budget: { total?: number | null; daily?: number | null }): Promise<KeyRecord> {
    if (rec.parent_id === null) throw forbidden('A root key spends the pool without a budget; budgets are for child keys', 'key_id', 'not_root_key');
    const b = budgetOf(budget);
    return this.update(rec.id, (cur) => ({ ...cur, budget: b.total_milli === null && b.daily_milli === null ? null : b }));
  }

  private async insert(base: Omit<KeyRecord, 'id' | 'secret_prefix' | 'secret_hash' | 'status' | 'created_at' | 'revoked_at' | 'rotated_at'>): Promise<KeyWithSecret> {
    const secret = randomSecret(base.key_type);
    const rec: KeyRecord = {
      ...base,
      id: `${KEY_ID_PREFIX}${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      secret_prefix: secret.slice(0, 12),
      secret_hash: hashSecret(secret),
      status: 'active',
      created_at: new Date().toISOString(),
      revoked_at: null,
      rotated_at: null,
    };
    if (rec.parent_id !== null) await this.placeChild(rec);
    else await this.redis.multi().sadd(this.keys.orgKeys(rec.org), rec.id).sadd(this.keys.activeKeys(rec.org), rec.id).exec();
    // The key's record (the authority) before the secret's: a secret never points to nothing.
    await this.redis.set(this.keys.key(rec.id), JSON.stringify(rec));
    await this.redis.set(this.keys.keyBySecret(rec.secret_hash), secretRecord(rec));
    return { key: publicKey(rec), secret };
  }

  /** A new child key's place under the caps (ADD_CHILD), or 429 QUOTA_EXCEEDED naming the cap reached. */
  private async placeChild(rec: KeyRecord): Promise<void> {
    await this.purgeRevoked(rec.org);
    if (!(await this.redis.exists(this.keys.activeKeys(rec.org)))) await this.rebuildActive(rec.org);
    const { maxChildKeys, maxOrgKeys, maxCreationsPerDay } = this.caps;
    const day = utcDay();
    const keys = [this.keys.childKeys(rec.org, rec.user), this.keys.activeKeys(rec.org), this.keys.orgKeys(rec.org), this.keys.keyCreations(rec.org, rec.user, day)];
    const placed = Number(await ADD_CHILD.run(this.redis, keys, [maxChildKeys, maxOrgKeys, maxCreationsPerDay, rec.id, 2 * 86_400]));
    if (placed === 1) return;
    const [message, expected] =
      placed === -1
        ? [`A user has at most ${maxChildKeys} active child keys; revoke one first`, { max_active_child_keys: maxChildKeys }]
        : placed === -2
          ? [`An organization has at most ${maxOrgKeys} active keys; revoke one first`, { max_active_keys_per_organization: maxOrgKeys }]
          : [`A user may create at most ${maxCreationsPerDay} child keys per UTC day, revoked ones included; try again after midnight UTC`, { max_key_creations_per_day: maxCreationsPerDay }];
    throw new ApiError('QUOTA_EXCEEDED', message, [{ field: 'scopes', issue: 'quota_exceeded', expected }]);
  }

  /**
   * The active-key sets of an organization from its key records: once, for an organization whose
   * keys were made before the sets existed (its root keys, made since, are in them). A key
   * revoked while this runs may be left in them: it then counts until its purge removes it.
   */
  private async rebuildActive(org: string): Promise<void> {
    const active = (await this.list(org)).filter((k) => k.status === 'active');
    if (!active.length) return;
    const m = this.redis.multi().sadd(this.keys.activeKeys(org), ...active.map((k) => k.id));
    for (const k of active) if (k.parent_id !== null) m.sadd(this.keys.childKeys(org, k.user), k.id);
    await m.exec();
  }

  /**
   * Purges the keys revoked more than the retention period ago (at most PURGE_BATCH a call):
   * their records by id and by secret and their usage counters are deleted, and they leave the
   * organization's list. A purged key's secret is then unknown (401 invalid_credentials).
   */
  private async purgeRevoked(org: string): Promise<void> {
    const before = Date.now() - this.caps.revokedRetentionS * 1000;
    const ids = await this.redis.zrangebyscore(this.keys.revokedKeys(org), '-inf', before, 'LIMIT', 0, PURGE_BATCH);
    await Promise.all(ids.map(async (id) => this.purge(org, id, await this.get(id))));
  }

  /** Deletes one revoked key's records (see purgeRevoked); a key found active is left alone. */
  private async purge(org: string, id: string, rec: KeyRecord | null): Promise<void> {
    if (rec && rec.status !== 'revoked') return;
    // The record by id first: from then on its secret is unknown, whatever is left.
    await this.redis.del(this.keys.key(id));
    // One DEL each: in a cluster the secret's record and the usage counters live in different slots.
    if (rec) await Promise.all([this.redis.del(this.keys.keyBySecret(rec.secret_hash)), this.redis.del(this.keys.usage(org, id))]);
    const m = this.redis.multi().srem(this.keys.orgKeys(org), id).srem(this.keys.activeKeys(org), id).zrem(this.keys.revokedKeys(org), id);
    if (rec) m.srem(this.keys.childKeys(org, rec.user), id);
    await m.exec();
  }

  /** The key a secret belongs to, with its state (see `resolve`); null when unknown. Counts nothing. */
  /** The key a secret belongs to (authenticateHash of its hash). */
  authenticate(secret: string): Promise<KeyRecord | null> {
    return this.authenticateHash(hashSecret(secret));
  }

  /**
   * The key a secret (by its hash) belongs to, with its state (see `resolve`), for every request:
   * two Redis round trips, the secret's record, then the key's record (and its root's, for a
   * child key). Null when unknown. (The request's rate window is its user's: services/rate.ts.)
   */
  async authenticateHash(h: string): Promise<KeyRecord | null> {
    const read = this.redis.get(this.keys.keyBySecret(h));
    // A secret seen before names the same key (its record never changes): the key's records are
    // read in the same tick as the secret's, one auto-pipelined round trip instead of two. The
    // secret's record still decides (a deleted secret is unknown), and the records are read on
    // every call, so a revocation or a rotation holds at once.
    const known = this.secretIds.get(h);
    const [json, early] = await Promise.all([read, known ? this.readRecords(known) : null]);
    return known && early && json === known.json ? this.resolveRecords(h, known, early) : this.resolve(h, json);
  }

  /** The records by id of a secret's key and of its root, if a child. */
  private readRecords(s: { id: string; parentId: string | null }): Promise<[string | null, string | null]> {
    return Promise.all([this.redis.get(this.keys.key(s.id)), s.parentId ? this.redis.get(this.keys.key(s.parentId)) : null]);
  }

  /**
   * The key of a secret's record, as the key's record by id says now: `active` only when that
   * record names this secret's hash (compared in constant time) and is active, and a child's root
   * is not revoked; `rotated` when the key has another secret now; `revoked` when the key or its
   * root is revoked. Null when the secret or its key is unknown.
   */
  private async resolve(h: string, secretJson: string | null): Promise<KeyRecord | null> {
    if (!secretJson) return null;
    const { id, parent_id: parentId } = JSON.parse(secretJson) as SecretRecord;
    const s = { id, parentId, json: secretJson };
    if (this.secretIds.size >= PARSED_MAX) this.secretIds.delete(this.secretIds.keys().next().value as string);
    this.secretIds.set(h, s);
    return this.resolveRecords(h, s, await this.readRecords(s));
  }

  /** resolve's verdict on the records read. */
  private resolveRecords(h: string, s: { id: string; parentId: string | null }, [json, parentJson]: [string | null, string | null]): KeyRecord | null {
    const rec = this.parse(s.id, json);
    if (!rec || rec.status === 'revoked') return rec;
    const a = Buffer.from(h, 'hex');
    const b = Buffer.from(rec.secret_hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { ...rec, status: 'rotated' };
    if (s.parentId && this.parse(s.parentId, parentJson)?.status !== 'active') return { ...rec, status: 'revoked' };
    return rec;
  }

  /** A stored key record, parsed once per distinct JSON and frozen. */
  private parse(id: string, json: string | null): KeyRecord | null {
    if (!json) return null;
    const seen = this.parsed.get(id);
    if (seen && seen.json === json) return seen.rec;
    const rec = deepFreeze(JSON.parse(json) as KeyRecord);
    if (seen) this.parsed.delete(id);
    else if (this.parsed.size >= PARSED_MAX) this.parsed.delete(this.parsed.keys().next().value as string);
    this.parsed.set(id, { json, rec });
    return rec;
  }

  /**
   * Changes a key's record by compare-and-set on what was read: `change` gets the current record
   * and returns the next one (null: nothing to change, the current one is returned). Another
   * writer in between makes it read and decide again, so no change is ever made to a stale copy.
   */
  private async update(id: string, change: (cur: KeyRecord) => KeyRecord | null): Promise<KeyRecord> {
    return compareAndSet({ field: 'key_id', what: 'The key', attempts: CAS_ATTEMPTS }, async () => {
      const json = await this.redis.get(this.keys.key(id));
      if (!json) throw notFound('API key', 'key_id');
      const next = change(JSON.parse(json) as KeyRecord);
      if (!next) return JSON.parse(json) as KeyRecord;
      return Number(await COMPARE_AND_SET.run(this.redis, [this.keys.key(id)], [json, JSON.stringify(next)])) ? next : RETRY;
    });
  }

  async get(id: string): Promise<KeyRecord | null> {
    const json = await this.redis.get(this.keys.key(id));
    return json ? (JSON.parse(json) as KeyRecord) : null;
  }

  /**
   * Every key of an organization, oldest first, revoked ones until their purge (see
   * purgeRevoked; a key revoked before revocations were indexed is purged when found here).
   */
  async list(org: string): Promise<KeyRecord[]> {
    await this.purgeRevoked(org);
    const ids = await this.redis.smembers(this.keys.orgKeys(org));
    if (!ids.length) return [];
    // One GET per key (auto-pipelined): key records live in their own slots, which one MGET may not span in a cluster.
    const jsons = await Promise.all(ids.map((id) => this.redis.get(this.keys.key(id))));
    const before = Date.now() - this.caps.revokedRetentionS * 1000;
    const recs = jsons.filter((j): j is string => !!j).map((j) => JSON.parse(j) as KeyRecord);
    const old = recs.filter((k) => k.status === 'revoked' && k.revoked_at !== null && Date.parse(k.revoked_at) < before);
    await Promise.all(old.map((k) => this.purge(org, k.id, k)));
    return recs.filter((k) => !old.includes(k)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** The keys `caller` may manage (see mayManage), oldest first. */
  async listManaged(caller: KeyRecord): Promise<KeyRecord[]> {
    return (await this.list(caller.org)).filter((rec) => mayManage(caller, rec));
  }

  /** A key `caller` may manage (see mayManage), or 404: any other key is an unknown id, whatever its organization or user. */
  async getManaged(caller: KeyRecord, id: string): Promise<KeyRecord> {
    const rec = await this.get(id);
    if (!rec || !mayManage(caller, rec)) throw notFound('API key', 'key_id');
    return rec;
  }

  /**
   * Revokes a key: every secret it ever had stops at once, everywhere (authentication reads the
   * record this writes). A root key's revoke also revokes its child keys (which already fail
   * authentication once their root's record says revoked). Idempotent.
   */
  async revoke(rec: Pick<KeyRecord, 'id'>): Promise<KeyRecord> {
    const at = new Date().toISOString();
    const next = await this.update(rec.id, (cur) => (cur.status === 'revoked' ? null : { ...cur, status: 'revoked', revoked_at: at }));
    // Out of the caps' counts, and into the index of revocations its purge reads.
    const m = this.redis.multi().srem(this.keys.activeKeys(next.org), next.id).zadd(this.keys.revokedKeys(next.org), 'NX', Date.parse(next.revoked_at ?? at), next.id);
    if (next.parent_id !== null) m.srem(this.keys.childKeys(next.org, next.user), next.id);
    await m.exec();
    if (next.parent_id !== null) return next;
    const children = (await this.list(next.org)).filter((k) => k.parent_id === next.id && k.status !== 'revoked');
    await Promise.all(children.map((k) => this.revoke(k)));
    return next;
  }

  /**
   * Issues a new secret, returned once; the old one stops working at once. A compare-and-set on
   * the secret the caller saw: of two concurrent rotations one takes effect and the other answers
   * 409 (`concurrent_change`), and a revoked key is never rotated back to life (409 `revoked`).
   */
  async rotate(rec: KeyRecord): Promise<KeyWithSecret> {
    if (rec.status !== 'active') throw revokedConflict();
    const secret = randomSecret(rec.key_type);
    const h = hashSecret(secret);
    // The new secret's record first: it authenticates nothing until the key's record names its hash.
    await this.redis.set(this.keys.keyBySecret(h), secretRecord(rec));
    let next: KeyRecord;
    try {
      next = await this.update(rec.id, (cur) => {
        if (cur.status !== 'active') throw revokedConflict();
        if (cur.secret_hash !== rec.secret_hash) throw new ApiError('CONFLICT', 'The key was rotated by another call at the same time; its secret is the one that call returned', [{ field: 'key_id', issue: 'concurrent_change' }]);
        return { ...cur, secret_prefix: secret.slice(0, 12), secret_hash: h, rotated_at: new Date().toISOString() };
      });
    } catch (err) {
      await this.redis.del(this.keys.keyBySecret(h)).catch(() => 0);
      throw err;
    }
    // The old secret answers rotated_key for a while, then is unknown. It already fails: a failure here loses nothing.
    await this.redis.expire(this.keys.keyBySecret(rec.secret_hash), ROTATED_TTL_S).catch(() => 0);
    return { key: publicKey(next), secret };
  }
}

/**
 * Whether `caller` may see, rotate and revoke `rec`: a key manages itself, and a root key also
 * every child key of its user (whichever of the user's root keys made it). Another user's keys,
 * another root key of the same user and operator-made internal keys are the operator's
 * (`bintel keys`). A JWT is no key record: it manages none. The fields read never change after
 * creation, so no concurrent write can turn a refusal into a permission.
 */
export function mayManage(caller: KeyRecord, rec: KeyRecord): boolean {
  if (rec.org !== caller.org) return false;
  if (rec.id === caller.id) return true;
  const callerIsRoot = caller.parent_id === null;
  return callerIsRoot && rec.parent_id !== null && !rec.internal && rec.user === caller.user;
}

const revokedConflict = () => new ApiError('CONFLICT', 'A revoked key cannot be rotated', [{ field: 'key_id', issue: 'revoked' }]);

/** What a secret's record holds: its key (see SecretRecord). */
const secretRecord = (rec: KeyRecord) => JSON.stringify({ id: rec.id, parent_id: rec.parent_id } satisfies SecretRecord);
