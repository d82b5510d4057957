/**
 * `bintel docs`: rewrites the generated sections of the documentation (the CSV reference in
 * docs/data.md, the export column layout in docs/api.md) from the entity definitions. A test
 * fails when they drift.
 */
import type { Command } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import { GENERATED_DOCS, regenerateSections } from '../mappings/docs.ts';
import { example } from './shared.ts';

export function registerDocsCommand(program: Command): void {
  example(program
    .command('docs')
    .summary('regenerate the CSV and export column tables in docs/')
    .description(`regenerate the sections of the documentation written from the entity definitions: every <!-- name:start --> … <!-- name:end --> section (csv-reference, export-columns) found in the files given (default: ${GENERATED_DOCS.join(', ')})`)
    .argument('[files...]', 'markdown files to update')
    .option('--readme <path>', 'one more file to update (before the docs/ split, the README held these sections)')
    .action(async (files: string[], o: { readme?: string }) => {
      const paths = [...(files.length ? files : GENERATED_DOCS), ...(o.readme ? [o.readme] : [])];
      for (const path of paths) {
        const { text, sections } = regenerateSections(await readFile(path, 'utf8'));
        await writeFile(path, text);
        process.stdout.write(sections.length ? `updated ${sections.join(', ')} in ${path}\n` : `no generated section in ${path}\n`);
      }
    }), 'bintel docs', 'bintel docs docs/data.md');
}
