import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { csvReference, exportColumnsReference, replaceSection } from '../../mappings/docs.ts';

test('the README CSV reference matches the entity definitions (run `npx bintel docs` after changing mappings/)', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  assert.is(replaceSection(readme, 'csv-reference', csvReference()), readme);
});

test('the README export column layout matches the entity definitions (`npx bintel docs`)', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  assert.is(replaceSection(readme, 'export-columns', exportColumnsReference()), readme);
});

test.run();
