/**
 * `bintel jwt mint|revoke`: JWT bearer tokens for operators and tests (server/services/jwt.ts). Wiring only.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../core/config.ts';
import { ALL_SCOPES } from '../server/scopes.ts';
import { JwtService, looksLikeJwt } from '../server/services/jwt.ts';
import { example, positiveWhole, print, scopesArg, withServices } from './shared.ts';

/** Registers `bintel jwt`. */
export function registerJwtCommands(program: Command): void {
  const jwt = example(
    program.command('jwt').summary('mint and revoke JWT bearer tokens').description('JWT bearer tokens (BINTEL_JWT_*): mint for operators and tests, revoke'),
    'bintel jwt mint --org acme --user ops --ttl 600',
  );
  example(
    jwt
      .command('mint')
      .description('sign a token with BINTEL_JWT_PRIVATE_KEY (RS256/ES256) or BINTEL_JWT_SECRET (HS256); prints the token alone')
      .requiredOption('--org <org>', 'organization (the org claim)')
      .requiredOption('--user <user>', 'user (the sub claim)')
      .option('--scopes <list>', `comma-separated scopes (default all: ${ALL_SCOPES.join(',')})`, scopesArg)
      .option('--tier <tier>', 'basic or advanced', 'advanced')
      .option('--type <type>', 'live or test', 'live')
      .option('--ttl <seconds>', 'lifetime in seconds (at most BINTEL_JWT_MAX_TTL_S)', positiveWhole('a positive whole number of seconds'), 3600)
      .option('--json', 'print {token, jti, exp}')
      .action(async (o: { org: string; user: string; scopes?: string[]; tier: string; type: string; ttl: number; json?: boolean }) => {
        if (!['live', 'test'].includes(o.type)) throw new InvalidArgumentError('--type must be live or test');
        if (!['basic', 'advanced'].includes(o.tier)) throw new InvalidArgumentError('--tier must be basic or advanced');
        const minted = await new JwtService(loadConfig().jwt).mint({ org: o.org, user: o.user, scopes: o.scopes ?? [...ALL_SCOPES], tier: o.tier as 'basic' | 'advanced', type: o.type as 'live' | 'test', ttlS: o.ttl });
        print(!!o.json, minted, minted.token);
      }),
    'bintel jwt mint --org acme --user ops --scopes read:companies --ttl 600',
    'curl -H "Authorization: Bearer $(bintel jwt mint --org acme --user ops)" http://127.0.0.1:3000/v1/whoami',
  );
  example(
    jwt
      .command('revoke')
      .description("refuse a token at once in every process, until its exp (given the token, its exp is read from it; given a jti, --exp is needed)")
      .argument('<token-or-jti>')
      .option('--exp <seconds>', "the token's exp claim (unix seconds), when a jti is given", positiveWhole('unix seconds'))
      .action(async (arg: string, o: { exp?: number }) => {
        const jti = await withServices(async (s) => {
          if (looksLikeJwt(arg)) {
            const t = await s.jwt.inspect(arg);
            await s.keys.revokeToken(t.key.id.slice(4), t.exp);
            return t.key.id.slice(4);
          }
          if (o.exp === undefined) throw new InvalidArgumentError('give the token itself, or --exp with its exp claim: a revocation lasts until the token expires');
          await s.keys.revokeToken(arg, o.exp);
          return arg;
        });
        process.stdout.write(`revoked token ${jti}\n`);
      }),
    'bintel jwt revoke eyJhbGciOi...',
    'bintel jwt revoke 0b9f6c2e-5d1a-4f7e-9c3b-2a8d4e6f1a7c --exp 1795000000',
  );
  example(
    jwt
      .command('revoke-user')
      .description('refuse every token of a user issued until now (by iat; a token without iat too); later tokens are accepted')
      .requiredOption('--org <org>', 'organization (the org claim)')
      .requiredOption('--user <user>', 'user (the sub claim)')
      .action(async (o: { org: string; user: string }) => {
        const before = await withServices((s) => s.keys.revokeUserTokens(o.org, o.user));
        process.stdout.write(`revoked every token of ${o.org}/${o.user} issued at or before ${new Date(before * 1000).toISOString()}\n`);
      }),
    'bintel jwt revoke-user --org acme --user ops',
  );
}
