/**
 * `bintel credits grant|show`: an organization's credit pool (server/services/credits.ts). Wiring only.
 */
import type { Command } from 'commander';
import { toCredits } from '../server/pricing.ts';
import { creditsArg, example, print, withServices } from './shared.ts';

/** Registers `bintel credits`. */
export function registerCreditsCommands(program: Command): void {
  const cr = example(program.command('credits').description("an organization's credit pool"), 'bintel credits show --org acme');
  example(
    cr
      .command('grant')
      .description('add credits to the pool (negative removes)')
      .requiredOption('--org <org>', 'organization id')
      .requiredOption('--amount <n>', 'credits, up to 3 decimals', creditsArg)
      .option('--json', 'JSON output')
      .action(async (o: { org: string; amount: number; json?: boolean }) => {
        const balance = await withServices((s) => s.credits.grant(o.org, o.amount));
        print(!!o.json, { org: o.org, granted: toCredits(o.amount), balance: toCredits(balance) }, `granted ${toCredits(o.amount)} credits to ${o.org}; balance ${toCredits(balance)}`);
      }),
    'bintel credits grant --org acme --amount 5000',
    'bintel credits grant --org acme --amount -12.5',
  );
  example(
    cr
      .command('show')
      .description('show the balance')
      .requiredOption('--org <org>', 'organization id')
      .option('--json', 'JSON output')
      .action(async (o: { org: string; json?: boolean }) => {
        const balance = await withServices((s) => s.credits.balance(o.org));
        print(!!o.json, { org: o.org, balance: toCredits(balance) }, `${o.org}: ${toCredits(balance)} credits`);
      }),
    'bintel credits show --org acme --json',
  );
}
