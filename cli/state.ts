/**
 * `bintel state export|import`: the namespace's durable Redis state as JSON lines
 * (server/services/state.ts). Wiring only.
 */
import type { Command } from 'commander';
import { exportState, importState } from '../server/services/state.ts';
import { example, withServices } from './shared.ts';

/** Registers `bintel state`. */
export function registerStateCommands(program: Command): void {
  const state = example(
    program
      .command('state')
      .summary("export and import the namespace's durable Redis state")
      .description("the namespace's durable Redis state (keys, pools, usage, tags, CRM context, writing records, jobs, feedback) as JSON lines"),
    'bintel state export backup.jsonl',
  );
  example(
    state
      .command('export')
      .description('write every durable key of the namespace (BINTEL_NAMESPACE) to FILE; secrets are never stored, only their hashes')
      .argument('<file>')
      .action(async (file: string) => {
        const n = await withServices((s) => exportState(s.redis, s.config.namespace, file));
        process.stdout.write(`exported ${n} keys to ${file}\n`);
      }),
    'BINTEL_NAMESPACE=prod bintel state export backup.jsonl',
  );
  example(
    state
      .command('import')
      .description('write the keys of FILE into the namespace (BINTEL_NAMESPACE), replacing keys of the same name')
      .argument('<file>')
      .action(async (file: string) => {
        const n = await withServices((s) => importState(s.redis, s.config.namespace, file));
        process.stdout.write(`imported ${n} keys from ${file}\n`);
      }),
    'BINTEL_NAMESPACE=staging bintel state import backup.jsonl',
  );
}
