/**
 * `bintel test [filter...]`: the whole suite against real Elasticsearch and Redis (npm test).
 */
import type { Command } from 'commander';
import { runTests } from '../test/runner.ts';

export function registerTestCommand(program: Command): void {
  program
    .command('test')
    .description('run the test suites against real Elasticsearch and Redis (started when needed), in a fresh namespace')
    .argument('[filters...]', 'only suites whose path contains one of these')
    .action(async (filters: string[]) => {
      process.exitCode = await runTests(filters);
    });
}
