/**
 * `bintel keys create|list|revoke|budget|rotate`: API keys (server/services/keys.ts). Wiring only.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { toCredits } from '../server/pricing.ts';
import { ALL_SCOPES } from '../server/scopes.ts';
import type { createServices } from '../server/context.ts';
import { creditsArg, example, print, scopesArg, withServices } from './shared.ts';

type Services = ReturnType<typeof createServices>;

/** The key of `id`, or an error naming it. */
async function keyOf(s: Services, id: string) {
  const k = await s.keys.get(id);
  if (!k) throw new Error(`no key ${id}`);
  return k;
}

/** Registers `bintel keys`. */
export function registerKeysCommands(program: Command): void {
  const keys = example(program.command('keys').description('issue and manage API keys'), 'bintel keys list --org acme');
  example(
    keys
      .command('create')
      .description('issue a root key; prints its secret once')
      .requiredOption('--org <org>', 'organization id')
      .requiredOption('--user <user>', 'user id the key belongs to')
      .option('--type <type>', 'live or test', 'live')
      .option('--tier <tier>', 'field tier: basic or advanced', 'advanced')
      .option('--scopes <list>', `comma-separated scopes (default all: ${ALL_SCOPES.join(',')})`, scopesArg)
      .option('--name <name>', 'a label')
      .option('--internal', 'an internal token (may use internal-only options)')
      .option('--json', 'print one JSON object')
      .action(async (o: { org: string; user: string; type: string; tier: string; scopes?: string[]; name?: string; internal?: boolean; json?: boolean }) => {
        if (!['live', 'test'].includes(o.type)) throw new InvalidArgumentError('--type must be live or test');
        if (!['basic', 'advanced'].includes(o.tier)) throw new InvalidArgumentError('--tier must be basic or advanced');
        const { key, secret } = await withServices((s) =>
          s.keys.createRoot({ org: o.org, user: o.user, key_type: o.type as 'live' | 'test', field_tier: o.tier as 'basic' | 'advanced', scopes: o.scopes, name: o.name, internal: o.internal }),
        );
        print(!!o.json, { ...key, secret }, `created ${key.key_type} key ${key.id} for ${key.org}/${key.user} (tier ${key.field_tier})\nscopes: ${key.scopes.join(', ')}\nsecret (shown once): ${secret}`);
      }),
    'bintel keys create --org acme --user ops --tier basic --scopes read:companies,read:personnel --name "CRM sync"',
  );
  example(
    keys
      .command('list')
      .description("list an organization's keys with usage")
      .requiredOption('--org <org>', 'organization id')
      .option('--json', 'JSON output')
      .action(async (o: { org: string; json?: boolean }) => {
        const rows = await withServices(async (s) => Promise.all((await s.keys.list(o.org)).map(async (k) => ({ ...k, secret_hash: undefined, usage: await s.credits.usage(k.org, k.id) }))));
        print(!!o.json, rows, rows.map((k) => `${k.id}  ${k.status.padEnd(7)} ${k.key_type} ${k.field_tier.padEnd(8)} ${k.secret_prefix}…  ${k.parent_id ? `child of ${k.parent_id}` : 'root'}  credits ${toCredits(k.usage.credits_milli)} rows ${k.usage.rows} queries ${k.usage.queries}  ${k.name}`).join('\n') || '(no keys)');
      }),
    'bintel keys list --org acme --json',
  );
  example(
    keys
      .command('revoke')
      .description('revoke a key (takes effect at once)')
      .argument('<key_id>')
      .option('--json', 'JSON output')
      .action(async (id: string, o: { json?: boolean }) => {
        const rec = await withServices(async (s) => s.keys.revoke(await keyOf(s, id)));
        print(!!o.json, { ...rec, secret_hash: undefined }, `revoked ${rec.id}`);
      }),
    'bintel keys revoke key_2f9c1a7e',
  );
  example(
    keys
      .command('budget')
      .description("set a child key's credit budget (spent from the org's pool; over it: 402 key_budget_exhausted)")
      .argument('<key_id>')
      .option('--total <credits>', 'credits in all', creditsArg)
      .option('--daily <credits>', 'credits per UTC day', creditsArg)
      .option('--clear', 'remove the budget')
      .option('--json', 'JSON output')
      .action(async (id: string, o: { total?: number; daily?: number; clear?: boolean; json?: boolean }) => {
        if (!o.clear && o.total === undefined && o.daily === undefined) throw new InvalidArgumentError('give --total, --daily or --clear');
        const budget = o.clear ? { total: null, daily: null } : { total: o.total === undefined ? null : toCredits(o.total), daily: o.daily === undefined ? null : toCredits(o.daily) };
        const rec = await withServices(async (s) => s.keys.setBudget(await keyOf(s, id), budget));
        const b = rec.budget;
        print(!!o.json, { ...rec, secret_hash: undefined }, `budget of ${rec.id}: ${b ? `${b.total_milli === null ? 'no total' : `${toCredits(b.total_milli)} in all`}, ${b.daily_milli === null ? 'no daily limit' : `${toCredits(b.daily_milli)} a day`}` : 'none'}`);
      }),
    'bintel keys budget key_2f9c1a7e --total 1000 --daily 50',
    'bintel keys budget key_2f9c1a7e --clear',
  );
  example(
    keys
      .command('rotate')
      .description('issue a new secret for a key; the old one stops working at once')
      .argument('<key_id>')
      .option('--json', 'JSON output')
      .action(async (id: string, o: { json?: boolean }) => {
        const { key, secret } = await withServices(async (s) => s.keys.rotate(await keyOf(s, id)));
        print(!!o.json, { ...key, secret }, `rotated ${key.id}\nnew secret (shown once): ${secret}`);
      }),
    'bintel keys rotate key_2f9c1a7e --json',
  );
}
