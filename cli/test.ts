/**
 * `bintel test [filter...]` (what `npm test` runs): wiring only; the runner is test/runner.ts.
 */
import type { Command } from 'commander';
import { example, positiveWhole } from './shared.ts';

/** Registers `bintel test`. */
export function registerTestCommand(program: Command): void {
  example(program
    .command('test')
    .summary('run the test files against real Elasticsearch and Redis')
    .description('run every test file (test/**/*.test.ts) against real Elasticsearch and Redis, started when needed, in a fresh namespace that is removed afterwards')
    .argument('[filters...]', 'only test files whose path contains one of these, e.g. `npm test -- ingest`')
    .option('--runtimes <list>', 'Node runtimes, one lane each, run side by side: `current` or majors (fetched with npx -p node@<major>)', 'current')
    .option('--timings <file>', 'where to write the time of every file and data load (default test-timings.json, or BINTEL_TEST_TIMINGS)')
    .option('--jobs <n>', 'files run at a time in each lane, each in a namespace of its own (default 2, or BINTEL_TEST_JOBS)', positiveWhole('a whole number of files, at least 1'))
    .action(async (filters: string[], o: { runtimes: string; timings?: string; jobs?: number }) => {
      // Loaded on use: the test runner is a development tool, not part of the shipped CLI path.
      const { runTests } = await import('../test/runner.ts');
      process.exitCode = await runTests({ filters, env: process.env, runtimes: o.runtimes, timings: o.timings, jobs: o.jobs });
    }), 'bintel test test/cli test/server/export.test', 'bintel test --runtimes current,24');
}
