/**
 * The `bintel` CLI for tests. `bintel(args)` runs a command in this process, through the same
 * command tree the binary builds (cli/program.ts), against the real Redis and Elasticsearch,
 * with its output and exit code captured: what an operator sees, without a cold start of a Node
 * process and the TypeScript loader per command. `spawnBintel(args)` runs the real binary, for
 * the few tests where the process itself is under test (help, the compiled bundle, signals,
 * `serve`, crashes).
 *
 * In-process, a command sees the environment of the test process with `env` laid over it for its
 * duration; its stdout and stderr writes (console included) and commander's own messages are
 * captured; `process.exit` inside it ends the command, not the test. Commands run one at a time.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { buildProgram } from '../../cli/program.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** What a command printed and how it ended. */
export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** A `process.exit(code)` inside a command. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

/** Errors commander already reported (its own parse errors, help): the exit code alone. */
const handled = new WeakSet<Error>();

let queue: Promise<unknown> = Promise.resolve();

/** Every command of the tree: exits become exceptions, output goes to the capture. */
function capture(cmd: Command, out: { writeOut: (s: string) => void; writeErr: (s: string) => void }): void {
  cmd.configureOutput(out);
  cmd.exitOverride((err) => {
    handled.add(err);
    throw err;
  });
  for (const sub of cmd.commands) capture(sub, out);
}

async function runOnce(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  let out = '';
  let err = '';
  const sink = { writeOut: (s: string) => void (out += s), writeErr: (s: string) => void (err += s) };
  const program = buildProgram(sink);
  capture(program, sink);
  const saved = { env: { ...process.env }, exitCode: process.exitCode, out: process.stdout.write, err: process.stderr.write, exit: process.exit };
  const write = (to: 'out' | 'err') =>
    ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      const s = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      if (to === 'out') out += s;
      else err += s;
      const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      cb?.();
      return true;
    }) as typeof process.stdout.write;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  process.exitCode = undefined;
  process.stdout.write = write('out');
  process.stderr.write = write('err');
  process.exit = ((code?: number) => {
    throw new ExitCalled(code ?? 0);
  }) as typeof process.exit;
  let code: number;
  try {
    await program.parseAsync(['node', 'bintel', ...args]);
    code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof ExitCalled) code = e.code;
    else if (e instanceof CommanderError && handled.has(e)) code = e.exitCode;
    else {
      // As the binary does (cli/index.ts): the message on stderr, the error's exit code or 1.
      err += `bintel: ${e instanceof Error ? e.message : String(e)}\n`;
      code = typeof (e as { exitCode?: number })?.exitCode === 'number' ? (e as { exitCode: number }).exitCode : 1;
    }
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    for (const k of Object.keys(process.env)) if (!(k in saved.env)) delete process.env[k];
    Object.assign(process.env, saved.env);
  }
  return { code, out, err };
}

/** Runs `bintel <args>` in this process with `env` over the test's environment. */
export function bintel(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const run = queue.then(() => runOnce(args, env));
  queue = run.catch(() => {});
  return run;
}

/** Runs the real `bintel` binary (a new Node process) with `env` over the test's environment. */
export function spawnBintel(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, out, err }));
  });
}
