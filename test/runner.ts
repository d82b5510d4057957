/**
 * The test runner behind `npm test` (`bintel test`): starts Elasticsearch and Redis when
 * needed, gives the run a fresh namespace, runs every uvu suite (test/**\/*.test.ts) in its
 * own process, deletes what the run created (its namespace only), and ends with the line
 * `N passed, N failed`. Exit code 1 on any failure or when no test ran.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadConfig, type Config } from '../server/config.ts';
import { createEs } from '../server/adapters/es.ts';
import { createRedis } from '../server/adapters/redis.ts';
import { ensureEs } from '../server/local/es-local.ts';
import { ensureRedis } from '../server/local/redis-local.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const ANSI = /\x1b\[[0-9;]*m/g;

async function findSuites(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await findSuites(p)));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

interface SuiteResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  code: number;
}

function runSuite(file: string, env: NodeJS.ProcessEnv): Promise<SuiteResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    child.on('exit', (code) => {
      const plain = text.replace(ANSI, '');
      const num = (label: string) => [...plain.matchAll(new RegExp(`${label}:\\s+(\\d+)`, 'g'))].reduce((s, m) => s + Number(m[1]), 0);
      const total = num('Total');
      const passed = num('Passed');
      const skipped = num('Skipped');
      let failed = Math.max(0, total - passed - skipped);
      if ((code ?? 1) !== 0 && failed === 0) failed = 1; // crashed before or after reporting
      resolve({ file, passed, failed, skipped, code: code ?? 1 });
    });
  });
}

/** Deletes every index and Redis key of the run's namespace (and only those). */
async function cleanup(config: Config): Promise<void> {
  const es = createEs(config);
  try {
    const res = (await es.cat.indices({ index: `${config.namespace}-*`, format: 'json', h: 'index' })) as { index?: string }[];
    const names = res.map((r) => r.index).filter((n): n is string => !!n && n.startsWith(`${config.namespace}-`));
    for (let i = 0; i < names.length; i += 50) await es.indices.delete({ index: names.slice(i, i + 50).join(','), ignore_unavailable: true });
  } finally {
    await es.close();
  }
  const redis = createRedis(config);
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.namespace}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Runs the suites whose path contains one of `filters` (all when empty); returns the exit code. */
export async function runTests(filters: string[]): Promise<number> {
  const base = loadConfig();
  const namespace = process.env.BINTEL_TEST_NAMESPACE || `bintel-test-${randomBytes(4).toString('hex')}`;
  const config = loadConfig({ ...process.env, BINTEL_NAMESPACE: namespace });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  await ensureEs(base, log);
  await ensureRedis(base, log);
  const all = await findSuites(join(ROOT, 'test'));
  const suites = all.filter((f) => !filters.length || filters.some((x) => relative(ROOT, f).includes(x)));
  log(`running ${suites.length} suite(s) in namespace ${namespace} against ${config.esUrl} and ${config.redisUrl}`);
  const env = { ...process.env, BINTEL_NAMESPACE: namespace, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', FORCE_COLOR: '0' };
  const results: SuiteResult[] = [];
  try {
    for (const file of suites) {
      log(`\n# ${relative(ROOT, file)}`);
      results.push(await runSuite(file, env));
    }
  } finally {
    await cleanup(config).catch((err: Error) => log(`cleanup of ${namespace} failed: ${err.message}`));
  }
  const passed = results.reduce((s, r) => s + r.passed, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  const skipped = results.reduce((s, r) => s + r.skipped, 0);
  for (const r of results.filter((x) => x.failed)) log(`FAILED: ${relative(ROOT, r.file)} (${r.failed})`);
  log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return failed > 0 || passed === 0 ? 1 : 0;
}
