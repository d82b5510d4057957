/**
 * The CLI's help as operators read it: `bintel --help` lists every command group on one line
 * each, and the help of every group and command ends with an example of its use. The tree is
 * walked in process (cli/program.ts); one real process checks the top-level help as printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { buildProgram } from '../../cli/program.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const GROUPS = ['up', 'es', 'generate', 'ingest', 'reindex', 'indices', 'rollback', 'worker', 'serve', 'keys', 'credits', 'jwt', 'users', 'crm', 'reports', 'flags', 'state', 'docs', 'test'];

function helpOut(): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${ROOT}bin/bintel.js`, '--help'], { env: { ...process.env, COLUMNS: '80' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** Every command below `cmd` (groups and their commands), with its full name. */
function walk(cmd: Command, prefix: string[] = []): { name: string; cmd: Command }[] {
  return cmd.commands.flatMap((c) => [{ name: [...prefix, c.name()].join(' '), cmd: c }, ...walk(c, [...prefix, c.name()])]);
}

/** The help of one command as `bintel <name> --help` prints it, hooks included. */
function helpOf(name: string): string {
  let text = '';
  const program = buildProgram({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  const cmd = name.split(' ').reduce<Command>((c, n) => c.commands.find((x) => x.name() === n) as Command, program);
  cmd.outputHelp();
  return text;
}

test('bintel --help lists every command group, each on one line', async () => {
  const r = await helpOut();
  assert.is(r.code, 0);
  const lines = r.out.split('\n');
  for (const g of GROUPS) {
    const at = lines.findIndex((l) => new RegExp(`^  ${g} +\\S`).test(l));
    assert.ok(at >= 0, `${g} is not listed`);
    // A wrapped description continues on an indented line with no command name.
    assert.not.match(lines[at + 1] ?? '', /^ {4,}\S/, `${g}'s line wraps`);
  }
  const listed = lines.filter((l) => /^  [a-z]+ {2,}\S/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
  const registered = buildProgram().commands.map((c) => c.name());
  for (const c of registered) assert.ok(listed.includes(c), `${c} is registered but not listed`);
});

test('the help of every group and command ends with an example of bintel itself', () => {
  const all = walk(buildProgram());
  assert.ok(all.length > 40, `only ${all.length} commands found`);
  for (const { name } of all) {
    const text = helpOf(name);
    assert.match(text, /\nExamples?:\n {2}\$ .*bintel /, `bintel ${name} --help has no example`);
    // The example uses the command it documents.
    assert.ok(text.includes(`bintel ${name}`) || text.includes(`bintel ${name.split(' ')[0]}`), `bintel ${name}'s example is of another command`);
  }
});

test('the example is printed by a real --help as well', async () => {
  const r = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [`${ROOT}bin/bintel.js`, 'keys', 'create', '--help'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', () => resolve(out));
  });
  assert.match(r, /Example:\n {2}\$ bintel keys create --org /);
});

test.run();
