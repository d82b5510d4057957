/**
 * `bintel docs`: rewrites the generated sections of the documentation (the CSV reference in
 * docs/data.md, the export column layout in docs/api.md, the consumer's reference in
 * docs/reference.md) from the entity definitions, the pricing and the OpenAPI document. A test
 * fails when they drift.
 */
import type { Command } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import { GENERATED_DOCS } from '../mappings/docs.ts';
import { example } from './shared.ts';

/** The files `bintel docs` rewrites by default (server/openapi/reference.ts: DOC_FILES, loaded only when the command runs). */
const DEFAULT_FILES = [...GENERATED_DOCS, 'docs/reference.md'];

export function registerDocsCommand(program: Command): void {
  example(program
    .command('docs')
    .summary('rewrite the sections of docs/ generated from the code')
    .description(`regenerate the sections of the documentation written from the entity definitions: every <!-- name:start --> … <!-- name:end --> section (csv-reference, export-columns, and in docs/reference.md the rows table, prices, field dictionary and sample responses) found in the files given (default: ${DEFAULT_FILES.join(', ')})`)
    .argument('[files...]', 'markdown files to update')
    .option('--readme <path>', 'one more file to update (before the docs/ split, the README held these sections)')
    .action(async (files: string[], o: { readme?: string }) => {
      // The reference renders from the OpenAPI document: loaded when the command runs, not at every CLI start.
      const { DOC_FILES, regenerateDocs } = await import('../server/openapi/reference.ts');
      const paths = [...(files.length ? files : DOC_FILES), ...(o.readme ? [o.readme] : [])];
      for (const path of paths) {
        const { text, sections } = regenerateDocs(await readFile(path, 'utf8'));
        await writeFile(path, text);
        process.stdout.write(sections.length ? `updated ${sections.join(', ')} in ${path}\n` : `no generated section in ${path}\n`);
      }
    }), 'bintel docs', 'bintel docs docs/data.md');
}
