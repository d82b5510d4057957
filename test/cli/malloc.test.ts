/**
 * bin/malloc.js: a command that wants glibc's fixed mmap threshold runs again as a child with it
 * set, and ends as the child ends (its exit code, its signal); a signal sent to the command
 * reaches the child once. The script below stands in for the CLI (the import itself is measured
 * in bench:form5500): it reports what the child saw.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const t = suite('malloc tuning rerun');
const MALLOC = pathToFileURL(resolve('bin/malloc.js')).href;
let dir = '';
let script = '';

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bintel-malloc-'));
  script = join(dir, 'cmd.mjs');
  await writeFile(
    script,
    `import { wantsMallocTuning, rerunWithMallocTuning } from ${JSON.stringify(MALLOC)};
if (wantsMallocTuning()) await rerunWithMallocTuning(undefined, { replace: process.env.REPLACE !== '0' });
const mode = process.argv[2];
let signals = 0;
process.on('SIGTERM', () => { signals++; setTimeout(() => { console.log('child SIGTERM x' + signals); process.exit(7); }, 200); });
console.log('child threshold=' + process.env.MALLOC_MMAP_THRESHOLD_ + ' flags=' + process.execArgv.join(' ') + ' args=' + process.argv.slice(2).join(',') + ' pid=' + process.pid);
if (mode === 'exit') process.exit(5);
if (mode === 'wait') setInterval(() => {}, 1000);
`,
  );
});
t.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the stand-in command with the test's environment, less the two variables, plus `env`; `term` sends it SIGTERM once the child has started. */
function run(args: string[], env: Record<string, string> = {}, term = false): Promise<{ code: number | null; out: string; pid: number }> {
  const e: Record<string, string | undefined> = { ...process.env, ...env };
  for (const v of ['MALLOC_MMAP_THRESHOLD_', 'BINTEL_MALLOC_TUNING', 'BINTEL_PROCESS_TUNED']) if (!(v in env)) delete e[v];
  return new Promise((done) => {
    const child = spawn(process.execPath, [script, ...args], { env: e, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let sent = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (term && !sent && out.includes('child threshold')) {
        sent = true;
        child.kill('SIGTERM');
      }
    });
    child.on('exit', (code) => done({ code, out: out.replace(/ pid=(\d+)/, ''), pid: Number(/ pid=(\d+)/.exec(out)?.[1]) }));
    pids.push(child.pid as number);
  });
}
const pids: number[] = [];
/** Node can replace the process (process.execve): the command keeps its pid. */
const replaces = typeof (process as { execve?: unknown }).execve === 'function';

const linux = process.platform === 'linux';

for (const replace of ['1', '0']) {
  t(`the command runs again with the threshold and the same arguments; its exit code is the command's (REPLACE=${replace})`, async () => {
    const r = await run(['exit', 'x y'], { REPLACE: replace });
    assert.is(r.out.trim(), linux ? 'child threshold=1048576 flags=--max-semi-space-size=4 args=exit,x y' : 'child threshold=undefined flags= args=exit,x y');
    assert.is(r.code, 5);
    // Replaced in place where Node can (same pid), else a child process (another pid).
    if (linux) assert.is(r.pid === pids[pids.length - 1], replace === '1' && replaces);
  });

  t(`SIGTERM sent to the command reaches the command's work once; it ends with that code (REPLACE=${replace})`, async () => {
    if (!linux) return;
    const r = await run(['wait'], { REPLACE: replace }, true);
    assert.match(r.out, /child threshold=1048576 flags=--max-semi-space-size=4 args=wait/);
    assert.match(r.out, /child SIGTERM x1\n/);
    assert.is(r.code, 7);
  });
}

t('a threshold already set is kept; BINTEL_MALLOC_TUNING=0 or a tuned process runs the command in place', async () => {
  const set = await run(['exit'], { MALLOC_MMAP_THRESHOLD_: '65536' });
  assert.is(set.out.trim(), `child threshold=65536 flags=${linux ? '--max-semi-space-size=4' : ''} args=exit`);
  assert.is(set.code, 5);
  const off = await run(['exit'], { BINTEL_MALLOC_TUNING: '0' });
  assert.is(off.out.trim(), 'child threshold=undefined flags= args=exit');
  const tuned = await run(['exit'], { BINTEL_PROCESS_TUNED: '1' });
  assert.is(tuned.out.trim(), 'child threshold=undefined flags= args=exit');
});

t.run();
