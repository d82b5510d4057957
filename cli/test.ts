/**
 * `bintel test [filter...]` (what `npm test` runs): wiring only; the runner is test/runner.ts.
 */
import type { Command } from 'commander';
import { example } from './shared.ts';

/** Registers `bintel test`. */
export function registerTestCommand(program: Command): void {
  example(program
    .command('test')
    .summary('run the test files against real Elasticsearch and Redis')
    .description('run every test file (test/**/*.test.ts) against real Elasticsearch and Redis, started when needed, in a fresh namespace that is removed afterwards')
    .argument('[filters...]', 'only test files whose path contains one of these, e.g. `npm test -- ingest`')
    .action(async (filters: string[]) => {
      // Loaded on use: the test runner is a development tool, not part of the shipped CLI path.
      const { runTests } = await import('../test/runner.ts');
      process.exitCode = await runTests({ filters, env: process.env });
    }), 'bintel test test/cli test/server/export.test');
}
