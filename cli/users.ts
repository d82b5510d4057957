/**
 * `bintel users set|show`: a user's account details, the default sender of writing jobs
 * (server/writing/refs.ts). Wiring only.
 */
import type { Command } from 'commander';
import { setProfile } from '../server/writing/refs.ts';
import { example, print, withServices } from './shared.ts';

const lines = (profile: Record<string, unknown>): string => Object.entries(profile).map(([k, v]) => `${k}: ${v}`).join('\n') || '(no details)';

/** Registers `bintel users`. */
export function registerUsersCommands(program: Command): void {
  const users = example(
    program.command('users').summary("set and show a user's account details").description("a user's account details (the default sender of writing jobs)"),
    'bintel users show --org acme --user ana',
  );
  example(
    users
      .command('set')
      .description('set account details of a user (omitted options are kept; an empty value clears one)')
      .requiredOption('--org <org>', 'organization')
      .requiredOption('--user <user>', 'user (as on their keys)')
      .option('--full-name <name>', 'full name')
      .option('--email <email>', 'email address')
      .option('--signature <text>', 'email signature (use \\n for line breaks)')
      .option('--title <title>', 'job title')
      .option('--company <name>', 'company name')
      .option('--json', 'JSON output')
      .action(async (o: { org: string; user: string; fullName?: string; email?: string; signature?: string; title?: string; company?: string; json?: boolean }) => {
        const fields = { full_name: o.fullName, email: o.email, signature: o.signature?.replace(/\\n/g, '\n'), title: o.title, company_name: o.company };
        const profile = await withServices((s) => setProfile(s, { org: o.org, user: o.user }, fields));
        print(!!o.json, profile, lines(profile));
      }),
    'bintel users set --org acme --user ana --full-name "Ana Ruiz" --email ana@acme.example --signature "Ana\\nAcme Benefits"',
  );
  example(
    users
      .command('show')
      .description("a user's account details")
      .requiredOption('--org <org>', 'organization')
      .requiredOption('--user <user>', 'user')
      .option('--json', 'JSON output')
      .action(async (o: { org: string; user: string; json?: boolean }) => {
        const profile = await withServices((s) => setProfile(s, { org: o.org, user: o.user }, {}));
        print(!!o.json, profile, lines(profile));
      }),
    'bintel users show --org acme --user ana --json',
  );
}
