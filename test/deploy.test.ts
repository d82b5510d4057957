/**
 * The image and the compose file, read (there is no Docker engine in the test run): the image
 * serves (`bintel serve`, never the demo command `bintel up`) on a supported Node; the compose
 * Redis keeps keys and balances (append-only file fsynced every second, a memory limit,
 * `noeviction`); the demo runs only under the `demo` profile; the worker service runs
 * `bintel worker`; health checks ask the readiness endpoint.
 */
// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const t = suite('deploy files');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const COMPOSE = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
/** Node majors in support (LTS, maintenance or current) at the time of writing; 20 reached its end of life in April 2026. */
const SUPPORTED_NODE = new Set([22, 24]);
const READINESS = '/v1/health';

/** The Dockerfile's instructions, continuation lines joined and comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\w+)\s+(.*)$/.exec(l);
      return { op: (m?.[1] ?? l).toUpperCase(), args: m?.[2] ?? '' };
    });
}

/** The exec form of CMD/ENTRYPOINT as words (a shell form split on spaces). */
const words = (args: string): string[] => (args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/));

/** The compose file's services: name → the lines of its block (two-space indented YAML, as the file is written). */
function services(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let inServices = false;
  let current: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (/^\S/.test(line)) {
      inServices = /^services:\s*$/.test(line);
      current = null;
      continue;
    }
    if (!inServices) continue;
    const m = /^ {2}([A-Za-z0-9_-]+):\s*$/.exec(line);
    if (m) out.set(m[1], (current = []));
    else if (current && line.trim() && !line.trim().startsWith('#')) current.push(line);
  }
  return out;
}

/** A `key: [..]` flow list of a service block (written as JSON in the file), or null. */
function flowList(block: string[], key: string): string[] | null {
  const line = block.find((l) => new RegExp(`^ {4}${key}:\\s*\\[`).test(l));
  return line ? (JSON.parse(line.slice(line.indexOf('['))) as string[]) : null;
}

/** The value of `key:` in a service block (4-space level), or null. */
function scalar(block: string[], key: string): string | null {
  const line = block.find((l) => new RegExp(`^ {4}${key}:`).test(l));
  return line ? line.replace(new RegExp(`^ {4}${key}:\\s*`), '').trim() : null;
}

const SVC = services(COMPOSE);
const svc = (name: string): string[] => {
  const s = SVC.get(name);
  assert.ok(s, `docker-compose.yml has a ${name} service (has: ${[...SVC.keys()].join(', ')})`);
  return s!;
};

t('the image serves: its command is `bintel serve`, never the demo command', () => {
  const ins = instructions(DOCKERFILE);
  const cmd = [...ins].reverse().find((i) => i.op === 'CMD');
  const entry = [...ins].reverse().find((i) => i.op === 'ENTRYPOINT');
  const argv = [...(entry ? words(entry.args) : []), ...(cmd ? words(cmd.args) : [])];
  assert.ok(argv.includes('bin/bintel.js'), `runs the CLI: ${argv.join(' ')}`);
  assert.is(argv[argv.indexOf('bin/bintel.js') + 1], 'serve', `the image runs serve: ${argv.join(' ')}`);
  assert.not.ok(argv.includes('up'), 'the image never runs `bintel up`');
  // serve binds 127.0.0.1 unless told: in a container it must listen on every interface.
  assert.ok(ins.some((i) => i.op === 'ENV' && /BINTEL_HOST=0\.0\.0\.0/.test(i.args)), 'BINTEL_HOST=0.0.0.0 in the image');
});

t('the image is on a supported Node major', () => {
  const from = instructions(DOCKERFILE).filter((i) => i.op === 'FROM');
  assert.ok(from.length > 0);
  for (const f of from) {
    const m = /(?:^|\s)node:(\d+)/.exec(f.args);
    assert.ok(m, `FROM names a node:<major> image: ${f.args}`);
    assert.ok(SUPPORTED_NODE.has(Number(m![1])), `Node ${m![1]} is not a supported major (${[...SUPPORTED_NODE].join(', ')})`);
  }
});

t('the image health check asks readiness', () => {
  const hc = instructions(DOCKERFILE).find((i) => i.op === 'HEALTHCHECK');
  assert.ok(hc, 'the Dockerfile has a HEALTHCHECK');
  assert.ok(hc!.args.includes(READINESS), hc!.args);
});

t('compose Redis keeps keys and balances: append-only, fsync every second, a memory limit, noeviction, a volume', () => {
  const redis = svc('redis');
  const cmd = flowList(redis, 'command');
  assert.ok(cmd, 'the redis service has a command list');
  const opt = (name: string): string | undefined => {
    const i = cmd!.indexOf(`--${name}`);
    return i >= 0 ? cmd![i + 1] : undefined;
  };
  assert.is(opt('appendonly'), 'yes');
  assert.is(opt('appendfsync'), 'everysec');
  assert.is(opt('maxmemory-policy'), 'noeviction');
  assert.ok(opt('maxmemory') && !/^0\w*$/.test(opt('maxmemory')!), `a memory limit: ${opt('maxmemory')}`);
  assert.ok(redis.some((l) => /^\s+- \S+:\/data\s*$/.test(l)), 'the append-only file lives in a volume');
});

t('compose api serves, the worker service runs the worker, the demo is only under a profile', () => {
  const api = svc('api');
  const apiCmd = flowList(api, 'command');
  // No command: the image's, which is `serve` (above).
  if (apiCmd) assert.is(apiCmd[apiCmd.indexOf('bin/bintel.js') + 1], 'serve');
  assert.is(scalar(api, 'profiles'), null, 'the api runs in every start');
  const worker = svc('worker');
  const wCmd = flowList(worker, 'command');
  assert.ok(wCmd, 'the worker service has a command');
  assert.is(wCmd![wCmd!.indexOf('bin/bintel.js') + 1], 'worker');
  for (const [name, block] of SVC) {
    const cmd = flowList(block, 'command') ?? [];
    if (!cmd.includes('up')) continue;
    assert.equal(flowList(block, 'profiles'), ['demo'], `${name} runs the demo command and must be under the demo profile only`);
  }
  assert.ok([...SVC.values()].some((b) => (flowList(b, 'command') ?? []).includes('up')), 'a demo service exists (under its profile)');
});

t('compose health checks of the API ask readiness', () => {
  const hc = svc('api').join('\n');
  assert.match(hc, /healthcheck:/);
  assert.ok(hc.includes(READINESS) && !hc.includes(`${READINESS}/live`), 'the api health check asks /v1/health');
});

t.run();
