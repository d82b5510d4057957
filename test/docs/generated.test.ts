// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The sections of the documentation written from the entity definitions (`bintel docs`) match
 * them: the CSV reference in docs/data.md and the export columns in docs/api.md, each in one file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../cli/program.ts';
import { GENERATED_DOCS, GENERATED_SECTIONS, regenerateSections, replaceSection } from '../../mappings/docs.ts';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

test('every generated section is in exactly one of the docs files, and the README holds none', async () => {
  const found: string[] = [];
  for (const path of GENERATED_DOCS) found.push(...regenerateSections(await read(path)).sections);
  assert.equal(found.sort(), Object.keys(GENERATED_SECTIONS).sort());
  assert.equal(regenerateSections(await read('README.md')).sections, []);
});

test('the generated sections match the entity definitions (run `npx bintel docs` after changing mappings/)', async () => {
  for (const path of GENERATED_DOCS) {
    const text = await read(path);
    assert.is(regenerateSections(text).text, text, `${path} has drifted from mappings/`);
  }
});

test('a drifted section is rewritten, and a missing marker is an error', () => {
  const doc = 'intro\n<!-- export-columns:start -->\nstale\n<!-- export-columns:end -->\nend\n';
  const { text, sections } = regenerateSections(doc);
  assert.equal(sections, ['export-columns']);
  assert.not.match(text, 'stale');
  assert.match(text, '| companies |');
  assert.throws(() => replaceSection('no markers', 'csv-reference', 'x'), /no <!-- csv-reference:start -->/);
});

test('`bintel docs FILE` and `--readme FILE` rewrite the sections a file holds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bintel-docs-'));
  const write = process.stdout.write;
  try {
    const a = join(dir, 'a.md');
    const b = join(dir, 'b.md');
    await writeFile(a, 'x\n<!-- csv-reference:start -->\nold\n<!-- csv-reference:end -->\n');
    await writeFile(b, '<!-- export-columns:start -->\nold\n<!-- export-columns:end -->\n');
    process.stdout.write = () => true;
    await buildProgram().parseAsync(['node', 'bintel', 'docs', a, '--readme', b]);
    process.stdout.write = write;
    const [ta, tb] = await Promise.all([readFile(a, 'utf8'), readFile(b, 'utf8')]);
    assert.is(regenerateSections(ta).text, ta);
    assert.match(ta, '### companies.csv');
    assert.is(regenerateSections(tb).text, tb);
    assert.match(tb, '| personnel |');
  } finally {
    process.stdout.write = write;
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
