/**
 * The compiled CLI (bin/compiled.js): the data commands run from an esbuild bundle of the
 * sources, and a bundle older than any of its sources never runs.
 */
import { DATA_COMMANDS } from '../../bin/data-commands.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFile, readdir, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript without declarations
import { compiledCli } from '../../bin/compiled.js';

const ROOT = new URL('../..', import.meta.url).pathname;

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${ROOT}bin/bintel.js`, ...args], { env: { ...process.env, COLUMNS: '80', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, out }));
  });
}

test('the data commands answer the same compiled and through the TypeScript loader', async () => {
  for (const cmd of DATA_COMMANDS) {
    const [compiled, loader] = await Promise.all([run([cmd, '--help']), run([cmd, '--help'], { BINTEL_CLI_COMPILED: '0' })]);
    assert.is(compiled.code, 0, compiled.out);
    assert.ok(compiled.out.includes(`Usage: bintel ${cmd}`), compiled.out);
    assert.is(compiled.out, loader.out);
  }
  // A refused call exits the same way too (an unknown resource is named).
  const [compiled, loader] = await Promise.all([run(['ingest', 'nosuch', '/dev/null']), run(['ingest', 'nosuch', '/dev/null'], { BINTEL_CLI_COMPILED: '0' })]);
  assert.is.not(compiled.code, 0);
  assert.is(compiled.code, loader.code);
  assert.is(compiled.out, loader.out);
});

test('every module of the bundle keeps its source file as import.meta.url', async () => {
  const dir = dirOf(await compiledCli());
  for (const file of await readdir(dir)) {
    if (!file.endsWith('.js')) continue;
    assert.not.ok((await readFile(join(dir, file), 'utf8')).includes('import.meta.url'), `${file} reads import.meta.url`);
  }
});

test('a source changed after the build rebuilds the bundle before it runs', async () => {
  const before = dirOf(await compiledCli());
  const current = JSON.parse(await readFile(join(dirOf(await compiledCli()), '..', 'current.json'), 'utf8')) as { dir: string; inputs: Record<string, string> };
  assert.ok(Object.keys(current.inputs).includes('cli/example.ts'), 'the manifest lists the sources the bundle holds');
  assert.ok(Object.keys(current.inputs).includes('ingest/load.ts'));
  // A new mtime on one source (its content unchanged): the build no longer matches it.
  const file = join(ROOT, 'cli/example.ts');
  const s = await stat(file);
  await utimes(file, s.atime, new Date(Math.max(Date.now(), s.mtimeMs + 2000)));
  const after = dirOf(await compiledCli());
  assert.is.not(after, before);
  const rebuilt = JSON.parse(await readFile(join(after, '..', 'current.json'), 'utf8')) as { dir: string; inputs: Record<string, string> };
  const now = await stat(file);
  assert.is(rebuilt.inputs['cli/example.ts'], `${now.size}:${now.mtimeMs}`);
  // The old build stays on disk: a process started on it may still load its chunks.
  assert.ok((await stat(before)).isDirectory());
  // And the rebuilt bundle runs.
  const r = await run(['indices', '--help']);
  assert.is(r.code, 0, r.out);
});

const dirOf = (url: string | null): string => {
  assert.ok(url, 'the compiled CLI builds');
  return join(fileURLToPath(url as string), '..');
};

test.run();
