/**
 * JWT bearer tokens next to API keys, verified with `jose` (never by hand).
 *
 * The operator configures one verification key: BINTEL_JWT_SECRET (HS256), BINTEL_JWT_PUBLIC_KEY
 * (an RS256 or ES256 public key in PEM; the algorithm follows the key) or BINTEL_JWT_JWKS (a JWKS
 * file or URL; RS256 and ES256), and optionally BINTEL_JWT_ISSUER and BINTEL_JWT_AUDIENCE. Only
 * the configured algorithm is accepted: `alg: none` and an HS256 token signed with a public key
 * (algorithm confusion) are refused. Claims map to what an API key carries:
 *
 *   sub → user, org → organization, scope → scopes (space-separated, known scopes only),
 *   tier → field tier (basic|advanced, default basic), key_type → live|test (default live),
 *   exp (required, at most BINTEL_JWT_MAX_TTL_S after iat and after now), iat (optional, at most
 *   CLOCK_SKEW_S ahead of now), jti (required: rate limits, usage, daily caps and revocation are
 *   per token). sub and org are ids as key records have them (ID_RE).
 *
 * No accepted token may outlive BINTEL_JWT_MAX_TTL_S from now (a lifetime counted from an iat in
 * the future is refused too). A token's validity may still be post-dated (no iat, an exp far
 * ahead: refused until exp - max), so a revocation by jti is kept until the token's exp
 * (KeyService.revokeToken), and a revocation of every token of a user (by iat) is kept.
 *
 * A verified token becomes a key record (`id` `jwt_<jti>`), so scopes, tiers, the sandbox,
 * the organization's pool, rate limits, caps, crawl detection and tags work as for a key. It is
 * never a root key (it cannot create API keys).
 *
 * Verified tokens are kept per process (by the SHA-256 of the token, at most VERIFIED_MAX, each
 * until its exp): a repeated token costs a hash and a map lookup instead of a signature check,
 * so a JWT costs what a key costs. Nothing about a token can change before its exp but its
 * revocation, which the auth step checks in Redis on every call, cached or not.
 */
import { createHash, createPrivateKey, createPublicKey, createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../../core/config.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import { ApiError, unauthorized, type IssueCode } from '../errors.ts';
import { isKnownScope, withoutRetired } from '../scopes.ts';
import { deepFreeze, ID_RE, type KeyRecord } from './keys.ts';

/** A string that looks like a JWS compact token (three base64url parts, the last possibly empty: alg none). */
export const looksLikeJwt = (s: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(s);

/** How far a token's iat may lie ahead of this server's clock (an issuer's clock a little fast). */
export const CLOCK_SKEW_S = 60;

type Verifier = { key: KeyObject | Uint8Array | ReturnType<typeof createLocalJWKSet>; algorithms: string[] };

/** The algorithm of a PEM public key: RS256 for RSA, ES256 for P-256 EC keys. */
function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') return 'ES256';
  throw new Error(`BINTEL_JWT_PUBLIC_KEY: ${key.asymmetricKeyType} keys are not supported (RSA for RS256, P-256 EC for ES256)`);
}

/** The verifier of the configuration, or null when no verification key is configured. */
function verifierOf(jwt: Config['jwt']): Verifier | null {
  if (jwt.publicKey) {
    const key = createPublicKey(jwt.publicKey);
    return { key, algorithms: [algorithmOf(key)] };
  }
  if (jwt.jwks) {
    const set = /^https?:\/\//.test(jwt.jwks) ? createRemoteJWKSet(new URL(jwt.jwks)) : createLocalJWKSet(JSON.parse(readFileSync(jwt.jwks, 'utf8')));
    return { key: set as ReturnType<typeof createLocalJWKSet>, algorithms: ['RS256', 'ES256'] };
  }
  if (jwt.secret) return { key: createSecretKey(Buffer.from(jwt.secret, 'utf8')), algorithms: ['HS256'] };
  return null;
}

const fail = (issue: IssueCode, message: string) => unauthorized(issue, message);

/** What a verified token grants, as the key record every later step reads. */
export function keyOfClaims(p: JWTPayload): KeyRecord {
  const need = (name: string) => {
    const v = p[name];
    if (typeof v !== 'string' || !v) throw fail('invalid_token', `The token lacks the ${name} claim`);
    return v;
  };
  const sub = need('sub');
  const org = need('org');
  for (const [name, v] of [['sub', sub], ['org', org]]) if (!ID_RE.test(v)) throw fail('invalid_token', `The token's ${name} claim is not an id (letters, digits and _ . @ -, at most 64, starting with a letter or digit)`);
  const jti = need('jti');
  const scopes = withoutRetired(typeof p.scope === 'string' ? p.scope.split(' ').filter(Boolean) : []);
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length) throw fail('invalid_token', `The token's scope claim names unknown scopes: ${unknown.join(', ')}`);
  const tier = p.tier === undefined ? 'basic' : p.tier;
  if (tier !== 'basic' && tier !== 'advanced') throw fail('invalid_token', 'The tier claim must be basic or advanced');
  const type = p.key_type === undefined ? 'live' : p.key_type;
  if (type !== 'live' && type !== 'test') throw fail('invalid_token', 'The key_type claim must be live or test');
  return {
    id: `jwt_${jti}`,
    org,
    user: sub,
    name: `JWT ${jti}`,
    key_type: type,
    scopes: [...new Set(scopes)],
    field_tier: tier,
    entity_field_tiers: Object.fromEntries(ENTITY_NAMES.map((e) => [e, tier])),
    field_tiers: {},
    parent_id: `jwt:${typeof p.iss === 'string' ? p.iss : 'issuer'}`,
    internal: false,
    secret_prefix: '',
    secret_hash: '',
    status: 'active',
    created_at: new Date((p.iat ?? Math.floor(Date.now() / 1000)) * 1000).toISOString(),
    revoked_at: null,
    rotated_at: null,
  };
}

/**
 * What an operator should hear at start: a public key or JWKS (often an identity provider's,
 * signing for other applications too) without BINTEL_JWT_ISSUER and BINTEL_JWT_AUDIENCE accepts
 * any token that key signed. A warning, not a refusal: a key pair made for bintel alone is sound.
 */
export function jwtWarnings(jwt: Config['jwt']): string[] {
  if (!jwt.publicKey && !jwt.jwks) return [];
  const missing = [jwt.issuer ? '' : 'BINTEL_JWT_ISSUER', jwt.audience ? '' : 'BINTEL_JWT_AUDIENCE'].filter(Boolean);
  if (!missing.length) return [];
  const source = jwt.publicKey ? 'BINTEL_JWT_PUBLIC_KEY' : 'BINTEL_JWT_JWKS';
  return [`${source} is set without ${missing.join(' and ')}: any token this key signed is accepted, whoever it was issued for; set ${missing.join(' and ')} unless the key signs for bintel alone`];
}

/** Verified tokens kept per process. */
const VERIFIED_MAX = 10_000;

/** A verified token: the key record it grants, its exp and its iat (unix s; null when absent). */
export interface VerifiedToken {
  key: KeyRecord;
  exp: number;
  iat: number | null;
}

export class JwtService {
  private readonly verifier: Verifier | null;
  /** Verified tokens by the hash of the token, oldest first (see the module comment). */
  private readonly verified = new Map<string, VerifiedToken>();
  /** Verifications answered from `verified` (for tests and benchmarks). */
  cacheHits = 0;

  /** `log` hears the configuration's warnings (jwtWarnings) once, at construction. */
  constructor(
    private readonly config: Config['jwt'],
    log?: { warn(obj: object, msg: string): void },
  ) {
    this.verifier = verifierOf(config);
    for (const w of jwtWarnings(config)) log?.warn({ component: 'jwt' }, w);
  }

  get configured(): boolean {
    return this.verifier !== null;
  }

  /** Verifies a token: its key record, exp and iat (seconds), or a 401 naming the issue. A token verified before and not expired is answered from memory. */
  async verify(token: string): Promise<VerifiedToken> {
    const h = createHash('sha256').update(token).digest('base64url');
    const seen = this.verified.get(h);
    if (seen && seen.exp > Date.now() / 1000) {
      this.cacheHits++;
      return seen;
    }
    if (seen) this.verified.delete(h);
    const fresh = await this.verifyFully(token);
    if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(h, fresh);
    return fresh;
  }

  /** The signature, the claims and the lifetime, checked with jose. */
  private async verifyFully(token: string): Promise<VerifiedToken> {
    const payload = await this.checked(token, {});
    const exp = payload.exp as number;
    this.checkLifetime(exp, payload.iat, Math.floor(Date.now() / 1000));
    return { key: deepFreeze(keyOfClaims(payload)), exp, iat: payload.iat ?? null };
  }

  /**
   * A token to revoke: its signature, issuer, audience and claims checked as `verify` does, but
   * not its times (an expired or not yet valid token may be revoked). A 401 naming the issue when
   * it is not one this service would ever accept.
   */
  async inspect(token: string): Promise<VerifiedToken> {
    const payload = await this.checked(token, { clockTolerance: Number.MAX_SAFE_INTEGER });
    return { key: keyOfClaims(payload), exp: payload.exp as number, iat: payload.iat ?? null };
  }

  /** jose's verification with this configuration; its errors as 401s naming the issue. */
  private async checked(token: string, opts: { clockTolerance?: number }): Promise<JWTPayload> {
    if (!this.verifier) throw fail('tokens_not_accepted', 'This service takes API keys only: no JWT verification key is configured (BINTEL_JWT_SECRET, BINTEL_JWT_PUBLIC_KEY or BINTEL_JWT_JWKS)');
    try {
      const { payload } = await jwtVerify(token, this.verifier.key as never, {
        algorithms: this.verifier.algorithms,
        requiredClaims: ['exp', 'sub', 'jti'],
        ...(this.config.issuer ? { issuer: this.config.issuer } : {}),
        ...(this.config.audience ? { audience: this.config.audience } : {}),
        ...opts,
      });
      return payload;
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw fail('expired_token', 'The token has expired');
      if (err instanceof errors.JWTClaimValidationFailed) throw fail('invalid_token', `The token's ${err.claim} claim is not accepted (${err.reason})`);
      if (err instanceof errors.JOSEAlgNotAllowed) throw fail('invalid_token', `The token's algorithm is not accepted (this service takes ${this.verifier.algorithms.join(' or ')})`);
      if (err instanceof errors.JOSEError) throw fail('invalid_token', `The token is not valid (${err.code})`);
      throw err;
    }
  }

  /** A token lives at most maxTtlS after its iat and after now; its iat lies at most CLOCK_SKEW_S ahead. */
  private checkLifetime(exp: number, iat: number | undefined, now: number): void {
    const max = this.config.maxTtlS;
    if (iat !== undefined && iat > now + CLOCK_SKEW_S) throw fail('invalid_token', `The token's iat claim lies ${iat - now} s in the future (at most ${CLOCK_SKEW_S} s of clock skew is allowed)`);
    if (exp - now > max || (iat !== undefined && exp - iat > max)) throw fail('invalid_token', `The token lives longer than the ${max} s this service allows (exp at most ${max} s after iat and after now)`);
  }

  /** Signs a token for `bintel jwt mint` with BINTEL_JWT_PRIVATE_KEY, or the HS256 secret. */
  async mint(c: { org: string; user: string; scopes: string[]; tier: 'basic' | 'advanced'; type: 'live' | 'test'; ttlS: number }): Promise<{ token: string; jti: string; exp: number }> {
    if (c.ttlS > this.config.maxTtlS) throw new ApiError('VALIDATION_ERROR', `--ttl: at most ${this.config.maxTtlS} s (BINTEL_JWT_MAX_TTL_S)`);
    for (const [flag, v] of [['--org', c.org], ['--user', c.user]]) if (!ID_RE.test(v)) throw new ApiError('VALIDATION_ERROR', `${flag} "${v}": letters, digits and _ . @ - (at most 64, starting with a letter or digit)`);
    const jti = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    const exp = now + c.ttlS;
    let key: KeyObject;
    let alg: string;
    if (this.config.privateKey) {
      key = createPrivateKey(this.config.privateKey);
      alg = algorithmOf(createPublicKey(key));
    } else if (this.config.secret) {
      alg = 'HS256';
      key = createSecretKey(Buffer.from(this.config.secret, 'utf8'));
    } else throw new Error('no signing key: set BINTEL_JWT_PRIVATE_KEY (PEM, or a file) or BINTEL_JWT_SECRET');
    const jwt = new SignJWT({ org: c.org, scope: c.scopes.join(' '), tier: c.tier, key_type: c.type }).setProtectedHeader({ alg, typ: 'JWT' }).setSubject(c.user).setJti(jti).setIssuedAt(now).setExpirationTime(exp);
    if (this.config.issuer) jwt.setIssuer(this.config.issuer);
    if (this.config.audience) jwt.setAudience(this.config.audience);
    return { token: await jwt.sign(key), jti, exp };
  }
}
