/**
 * API keys: issued by the operator (CLI) or, for child keys, by a root key. Secrets are
 * random, prefixed by type, shown once; only their SHA-256 is stored. Auth is one Redis GET
 * by secret hash; revocation and rotation rewrite that record, so they take effect at once
 * in every server process.
 */
import { writeInOrder } from '../../core/adapters/redis.ts';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';
import type { KeyBudget } from './credits.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import { ENTITIES } from '../../mappings/index.ts';
import type { Tier } from '../../mappings/types.ts';
import { ALL_SCOPES, DATA_READ_SCOPES, isDataReadScope, isKnownScope } from '../scopes.ts';
import { ApiError, forbidden, invalid, notFound } from '../errors.ts';

export type KeyType = 'live' | 'test';
export type KeyState = 'active' | 'revoked' | 'rotated';

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
export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

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

/**
 * Auth and rate limit in one round trip: the key record by secret hash, and the request
 * count of that secret in the current fixed window (both keys in the secret's slot).
 */
const AUTHENTICATE = `
local rec = redis.call('GET', KEYS[1])
if not rec then return {} end
local n = redis.call('INCR', KEYS[2])
if n == 1 then redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[1])) end
return {rec, n}
`;

/** A JWT's place in its rate window, unless revoked: KEYS = revoked flag, window; ARGV = window ms. */
const COUNT_TOKEN = `
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local n = redis.call('INCR', KEYS[2])
if n == 1 then redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[1])) end
return n
`;

export interface Authenticated {
  key: KeyRecord;
  /** Requests of this secret in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** Key records kept parsed per process (by secret hash): a request whose stored record is unchanged skips the parse. */
const PARSED_MAX = 10_000;

/** Freezes a parsed record and what it holds: one object serves every request of the key. */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

export class KeyService {
  /**
   * The last record parsed for each secret hash, with the JSON it came from. Redis still answers
   * every request (revocation and scope changes take effect at once in every process); only an
   * identical JSON reuses the parsed, frozen record.
   */
  private readonly parsed = new Map<string, { json: string; rec: KeyRecord }>();

  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys) {
    this.redis.defineCommand('bintelAuthenticate', { numberOfKeys: 2, lua: AUTHENTICATE });
    this.redis.defineCommand('bintelCountToken', { numberOfKeys: 2, lua: COUNT_TOKEN });
  }

  /**
   * A verified JWT's request in its rate window (per token: its jti), in one round trip with the
   * revocation check: the count, or null when the token is revoked.
   */
  async countToken(jti: string, windowMs: number, now = Date.now()): Promise<{ count: number; resetMs: number } | null> {
    const h = hashSecret(`jwt:${jti}`);
    const window = Math.floor(now / windowMs);
    const run = (this.redis as unknown as { bintelCountToken: (...a: (string | number)[]) => Promise<number> }).bintelCountToken;
    const n = Number(await run.call(this.redis, this.keys.jwtRevoked(h), this.keys.rateWindow(h, window), windowMs));
    return n < 0 ? null : { count: n, resetMs: (window + 1) * windowMs - now };
  }

  /** Revokes a JWT by its jti until `ttlS` seconds from now (its expiry): refused at once in every process. */
  async revokeToken(jti: string, ttlS: number): Promise<void> {
    await this.redis.set(this.keys.jwtRevoked(hashSecret(`jwt:${jti}`)), '1', 'EX', Math.max(1, Math.ceil(ttlS)));
  }

  /** Issues a root key (operator). */
  async createRoot(input: CreateKeyInput): Promise<KeyWithSecret> {
    for (const [field, v] of [['org', input.org], ['user', input.user]] as const) {
      if (!ID_RE.test(v)) throw invalid({ field, issue: 'invalid_format', expected: 'letters, digits and _ . @ - (at most 64)' });
    }
    const scopes = input.scopes ?? [...ALL_SCOPES];
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
    return this.insert({
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
  }

  /** Sets (or, both null, clears) a child key's credit budget; the record by secret first, so every process sees it on its next call. */
  async setBudget(rec: KeyRecord, budget: { total?: number | null; daily?: number | null }): Promise<KeyRecord> {
    if (rec.parent_id === null) throw forbidden('A root key spends the pool without a budget; budgets are for child keys', 'key_id', 'not_root_key');
    const b = budgetOf(budget);
    const next: KeyRecord = { ...rec, budget: b.total_milli === null && b.daily_milli === null ? null : b };
    const json = JSON.stringify(next);
    await writeInOrder(this.redis, [['SET', this.keys.keyBySecret(rec.secret_hash), json], ['SET', this.keys.key(rec.id), json]]);
    return next;
  }

  private async insert(base: Omit<KeyRecord, 'id' | 'secret_prefix' | 'secret_hash' | 'status' | 'created_at' | 'revoked_at' | 'rotated_at'>): Promise<KeyWithSecret> {
    const secret = randomSecret(base.key_type);
    const rec: KeyRecord = {
      ...base,
      id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      secret_prefix: secret.slice(0, 12),
      secret_hash: hashSecret(secret),
      status: 'active',
      created_at: new Date().toISOString(),
      revoked_at: null,
      rotated_at: null,
    };
    const json = JSON.stringify(rec);
    // The record by id and the org's list first, the secret's record (what authenticates) last.
    await writeInOrder(this.redis, [['SET', this.keys.key(rec.id), json], ['SADD', this.keys.orgKeys(rec.org), rec.id], ['SET', this.keys.keyBySecret(rec.secret_hash), json]]);
    return { key: publicKey(rec), secret };
  }

  /** The key a secret belongs to, with its state; null when unknown. Counts nothing. */
  async authenticate(secret: string): Promise<KeyRecord | null> {
    const h = hashSecret(secret);
    return this.verify(h, await this.redis.get(this.keys.keyBySecret(h)));
  }

  /**
   * The key a secret belongs to and this request's place in its rate-limit window (fixed
   * windows of `windowMs`), in one Redis round trip. Null when the secret is unknown.
   */
  async authenticateAndCount(secret: string, windowMs: number, now = Date.now()): Promise<Authenticated | null> {
    const h = hashSecret(secret);
    const window = Math.floor(now / windowMs);
    const run = (this.redis as unknown as { bintelAuthenticate: (...a: (string | number)[]) => Promise<[string, number] | []> }).bintelAuthenticate;
    const res = await run.call(this.redis, this.keys.keyBySecret(h), this.keys.rateWindow(h, window), windowMs);
    const key = this.verify(h, res[0] ?? null);
    if (!key) return null;
    return { key, count: Number(res[1]), resetMs: (window + 1) * windowMs - now };
  }

  /** Parses a stored record; its hash is compared in constant time as a second check of the lookup. */
  private verify(h: string, json: string | null): KeyRecord | null {
    if (!json) return null;
    const seen = this.parsed.get(h);
    if (seen && seen.json === json) return seen.rec;
    const rec = JSON.parse(json) as KeyRecord;
    const a = Buffer.from(h, 'hex');
    const b = Buffer.from(rec.secret_hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
    if (seen) this.parsed.delete(h);
    else if (this.parsed.size >= PARSED_MAX) this.parsed.delete(this.parsed.keys().next().value as string);
    this.parsed.set(h, { json, rec: deepFreeze(rec) });
    return rec;
  }

  async get(id: string): Promise<KeyRecord | null> {
    const json = await this.redis.get(this.keys.key(id));
    return json ? (JSON.parse(json) as KeyRecord) : null;
  }

  /** Every key of an organization, oldest first. */
  async list(org: string): Promise<KeyRecord[]> {
    const ids = await this.redis.smembers(this.keys.orgKeys(org));
    if (!ids.length) return [];
    // One GET per key (auto-pipelined): key records live in their own slots, which one MGET may not span in a cluster.
    const jsons = await Promise.all(ids.map((id) => this.redis.get(this.keys.key(id))));
    return jsons.filter((j): j is string => !!j).map((j) => JSON.parse(j) as KeyRecord).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** A key of the caller's organization, or 404 (never reveals other organizations' keys). */
  async getInOrg(org: string, id: string): Promise<KeyRecord> {
    const rec = await this.get(id);
    if (!rec || rec.org !== org) throw notFound('API key', 'key_id');
    return rec;
  }

  async revoke(rec: KeyRecord): Promise<KeyRecord> {
    if (rec.status === 'revoked') return rec;
    const next: KeyRecord = { ...rec, status: 'revoked', revoked_at: new Date().toISOString() };
    const json = JSON.stringify(next);
    // The secret's record first: the revocation takes effect at once.
    await writeInOrder(this.redis, [['SET', this.keys.keyBySecret(rec.secret_hash), json], ['SET', this.keys.key(rec.id), json]]);
    return next;
  }

  /** New secret, returned once; the old one stops working at once. */
  async rotate(rec: KeyRecord): Promise<KeyWithSecret> {
    if (rec.status !== 'active') throw new ApiError('CONFLICT', 'A revoked key cannot be rotated', [{ field: 'key_id', issue: 'revoked' }]);
    const secret = randomSecret(rec.key_type);
    const next: KeyRecord = { ...rec, secret_prefix: secret.slice(0, 12), secret_hash: hashSecret(secret), rotated_at: new Date().toISOString() };
    const old = JSON.stringify({ ...rec, status: 'rotated' satisfies KeyState });
    const json = JSON.stringify(next);
    // The old secret stops working first; the new one works once its record is written.
    await writeInOrder(this.redis, [['SET', this.keys.keyBySecret(rec.secret_hash), old, 'EX', ROTATED_TTL_S], ['SET', this.keys.key(rec.id), json], ['SET', this.keys.keyBySecret(next.secret_hash), json]]);
    return { key: publicKey(next), secret };
  }
}
