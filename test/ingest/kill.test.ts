/**
 * Killing `bintel ingest` half-way (SIGKILL, no chance to clean up) leaves the alias on the
 * previous complete index; the half-loaded version is marked incomplete, never served, and
 * removed by the next successful load. Ctrl-C (SIGINT) half-way stops cleanly: exit 130, the
 * half-loaded version dropped at once, the alias unchanged, and a line saying what was loaded.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ingestFile } from '../../ingest/run.ts';
import { listVersions, liveIndex } from '../../ingest/indices.ts';
import { entity } from '../../mappings/index.ts';
import { loadGenerated, type DataFiles } from '../helpers/data.ts';
import { closeAll, testConfig, testEs } from '../helpers/env.ts';
import { aliasName } from '../../core/names.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const config = testConfig();
const es = testEs();
const ns = config.namespace;
const companies = entity('companies');
let data: DataFiles | undefined;
let files = {} as DataFiles['files'];

test.before(async () => {
  // No personnel: loads brokers, broker offices and companies.
  data = await loadGenerated({ config }, { companies: 60_000, personnel: 0, brokerOffices: 200, brokers: 40, seed: 11, es });
  files = data.files;
});
test.after(async () => {
  await data?.cleanup();
  await closeAll();
});

async function indexedSoFar(index: string): Promise<number> {
  const s = await es.indices.stats({ index, metric: ['indexing'] }).catch(() => null);
  return s?.indices?.[index]?.primaries?.indexing?.index_total ?? 0;
}

test('SIGKILL half-way: the alias keeps serving the previous complete index', async () => {
  const before = await liveIndex(es, ns, 'companies');
  assert.ok(before);
  const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'ingest', 'companies', files.companies, '--batch-size', '500', '--concurrency', '1'], {
    env: { ...process.env, BINTEL_NAMESPACE: ns },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code, signal) => r(signal ? null : code)));
  // Wait until the new version holds some, not all, documents, then kill without warning.
  let partial = '';
  for (let i = 0; i < 600 && !partial; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const versions = await listVersions(es, ns, companies);
    const loading = versions.find((v) => !v.live && v.index > (before as string));
    if (loading && (await indexedSoFar(loading.index)) >= 2000) partial = loading.index;
  }
  assert.ok(partial, 'the load started');
  child.kill('SIGKILL');
  assert.is(await exited, null, 'killed by the signal');

  assert.is(await liveIndex(es, ns, 'companies'), before, 'alias unchanged');
  const count = await es.count({ index: aliasName(ns, 'companies') });
  assert.is(count.count, 60_000, 'the alias serves the complete previous index');
  const versions = await listVersions(es, ns, companies);
  const half = versions.find((v) => v.index === partial);
  assert.ok(half && !half.complete && !half.live, 'the half-loaded version is marked incomplete and not live');
  assert.ok((await indexedSoFar(partial)) < 60_000, 'it really was half-way');

  const s = await ingestFile(config, 'companies', files.companies, { progress: null, es });
  assert.is(s.indexed, 60_000);
  assert.ok(s.pruned.includes(partial), 'the next load removes the half-loaded version');
  assert.is(s.previous, before);
});

test('SIGINT half-way: exit 130, the new version dropped, the alias unchanged, what was loaded printed', async () => {
  const before = await liveIndex(es, ns, 'companies');
  assert.ok(before);
  const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'ingest', 'companies', files.companies, '--batch-size', '500', '--concurrency', '1'], {
    env: { ...process.env, BINTEL_NAMESPACE: ns },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const exited = new Promise<number | null>((r) => child.on('exit', (code, signal) => r(signal ? null : code)));
  let partial = '';
  for (let i = 0; i < 600 && !partial; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const versions = await listVersions(es, ns, companies);
    const loading = versions.find((v) => !v.live && v.index > (before as string));
    if (loading && (await indexedSoFar(loading.index)) >= 2000) partial = loading.index;
  }
  assert.ok(partial, 'the load started');
  child.kill('SIGINT');
  assert.is(await exited, 130, `exit 130 on Ctrl-C; stderr: ${stderr}`);

  const m = /interrupted after reading (\d+) rows \((\d+) indexed into ([^,]+), which is dropped; (\d+) rejected\)/.exec(stderr);
  assert.ok(m, `stderr says what was loaded: ${stderr}`);
  const [read, indexed] = [Number(m[1]), Number(m[2])];
  assert.is(m[3], partial, 'it names the version it dropped');
  assert.ok(indexed >= 2000 && indexed <= read && read < 60_000, `a partial load: read ${read}, indexed ${indexed}`);
  assert.match(stderr, /the alias still serves the previous complete index/);
  assert.is(await liveIndex(es, ns, 'companies'), before, 'alias unchanged');
  assert.is((await es.count({ index: aliasName(ns, 'companies') })).count, 60_000, 'the alias serves the complete previous index');
  assert.not.ok((await listVersions(es, ns, companies)).some((v) => v.index === partial), 'the half-loaded version is gone');
});

test.run();
