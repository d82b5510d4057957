/**
 * `bintel docs`: rewrites the generated sections of README.md (the CSV reference) from the
 * entity definitions. A test fails when they drift.
 */
import type { Command } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import { csvReference, exportColumnsReference, replaceSection } from '../mappings/docs.ts';
import { example } from './shared.ts';

export function registerDocsCommand(program: Command): void {
  example(program
    .command('docs')
    .summary('regenerate the CSV reference in README.md')
    .description('regenerate the CSV reference and the export column layout in README.md from the entity definitions')
    .option('--readme <path>', 'README to update', 'README.md')
    .action(async (o: { readme: string }) => {
      const text = await readFile(o.readme, 'utf8');
      await writeFile(o.readme, replaceSection(replaceSection(text, 'csv-reference', csvReference()), 'export-columns', exportColumnsReference()));
      process.stdout.write(`updated the CSV reference in ${o.readme}\n`);
    }), 'bintel docs --readme README.md');
}
