/**
 * Killing `bintel ingest` half-way (SIGKILL, no chance to clean up) leaves the alias on the
 * previous complete index; the half-loaded version is marked incomplete, never served, and
 * removed when the next load begins (its loader is gone). An interrupt during the merge stops the
 * load and deletes its index; a load never removes an index another live load is writing. Ctrl-C (SIGINT) half-way stops cleanly: exit 130, the
 * half-loaded version dropped at once, the alias unchanged, and a line saying what was loaded.
 *
 * "Half-way" is a known point, not a race against the load's speed: the spawned `bintel ingest`
 * reaches Elasticsearch through a TCP proxy (test/helpers/tcp-proxy.ts) that lets its first
 * `_bulk` requests through and holds the next, so the load surely stands part-way when the signal
 * comes, whatever the size of the file and the speed of the machine.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { ingestFile } from '../../ingest/run.ts';
import { EXIT, LoadAborted, load } from '../../ingest/load.ts';
import { ErrorReport } from '../../ingest/error-report.ts';
import { listVersions, liveIndex } from '../../ingest/indices.ts';
import { entity } from '../../mappings/index.ts';
import { loadGenerated, type DataFiles } from '../helpers/data.ts';
import { closeAll, pollUntil, testConfig, testEs } from '../helpers/env.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { aliasName } from '../../core/names.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const config = testConfig();
const es = testEs();
const ns = config.namespace;
const companies = entity('companies');
let data: DataFiles | undefined;
let proxy: TcpProxy;
/** Companies of the file: each load below stands part-way after PARTIAL of them. */
const ROWS = 8_000;
/** Rows indexed before the proxy holds a load: BULKS_BEFORE_HOLD requests of `--batch-size` 500. */
const BULKS_BEFORE_HOLD = 4;
const PARTIAL = BULKS_BEFORE_HOLD * 500;
const BULK = /^(POST|PUT) \S*_bulk/;
let files = {} as DataFiles['files'];
/** The first SMALL companies of the file, for the tests that only need a load to reach its merge. */
const SMALL = 3000;
let small = '';

test.before(async () => {
  // No personnel: loads brokers, broker offices and companies.
  data = await loadGenerated({ config }, { companies: ROWS, personnel: 0, brokerOffices: 200, brokers: 40, seed: 11, es });
  const url = new URL(config.esUrl);
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 9200) });
  files = data.files;
  const lines = (await readFile(files.companies, 'utf8')).split('\n');
  small = join(tmpdir(), `kill-small-${process.pid}.csv`);
  await writeFile(small, `${lines.slice(0, SMALL + 1).join('\n')}\n`);
});
test.after(async () => {
  await proxy?.close();
  await data?.cleanup();
  await closeAll();
});

async function indexedSoFar(index: string): Promise<number> {
  const s = await es.indices.stats({ index, metric: ['indexing'] }).catch(() => null);
  return s?.indices?.[index]?.primaries?.indexing?.index_total ?? 0;
}

/**
 * Starts `bintel ingest companies` through the proxy, held after PARTIAL rows; resolves when the
 * new version holds them (and the next bulk request is held), with the version's index.
 */
async function heldIngest(stdio: 'ignore' | 'pipe'): Promise<{ child: ReturnType<typeof spawn>; partial: string; before: string }> {
  const before = await liveIndex(es, ns, 'companies');
  assert.ok(before);
  const heldBefore = proxy.held;
  proxy.hold(BULK, { after: BULKS_BEFORE_HOLD });
  const child = spawn(process.execPath, [join(ROOT, 'bin/bintel.js'), 'ingest', 'companies', files.companies, '--batch-size', '500', '--concurrency', '1'], {
    env: { ...process.env, BINTEL_NAMESPACE: ns, ES_URL: proxy.url },
    stdio: ['ignore', stdio, stdio],
  });
  await pollUntil(() => proxy.held > heldBefore, { what: 'the load held after its first bulk requests', timeoutMs: 60_000 });
  const partial = await pollUntil(async () => {
    const loading = (await listVersions(es, ns, companies)).find((v) => !v.live && v.index > before);
    return loading && (await indexedSoFar(loading.index)) >= PARTIAL ? loading.index : '';
  }, { what: `${PARTIAL} rows indexed into the new version`, timeoutMs: 60_000 });
  return { child, partial, before };
}

test('SIGKILL half-way: the alias keeps serving the previous complete index', async () => {
  const { child, partial, before } = await heldIngest('ignore');
  const exited = new Promise<number | null>((r) => child.on('exit', (code, signal) => r(signal ? null : code)));
  child.kill('SIGKILL');
  assert.is(await exited, null, 'killed by the signal');
  proxy.release();

  assert.is(await liveIndex(es, ns, 'companies'), before, 'alias unchanged');
  const count = await es.count({ index: aliasName(ns, 'companies') });
  assert.is(count.count, ROWS, 'the alias serves the complete previous index');
  const versions = await listVersions(es, ns, companies);
  const half = versions.find((v) => v.index === partial);
  assert.ok(half && !half.complete && !half.live, 'the half-loaded version is marked incomplete and not live');
  assert.ok((await indexedSoFar(partial)) < ROWS, 'it really was half-way');

  const s = await ingestFile(config, 'companies', files.companies, { progress: null, es });
  assert.is(s.indexed, ROWS);
  assert.ok(s.orphans.includes(partial), 'the next load removes the half-loaded version before it begins (ending any merge it still ran)');
  assert.is(s.previous, before);
});

test('SIGINT half-way: exit 130, the new version dropped, the alias unchanged, what was loaded printed', async () => {
  const { child, partial, before } = await heldIngest('pipe');
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.resume();
  const exited = new Promise<number | null>((r) => child.on('exit', (code, signal) => r(signal ? null : code)));
  child.kill('SIGINT');
  // The held request goes on now: the load sees the interrupt between its requests.
  proxy.release();
  assert.is(await exited, 130, `exit 130 on Ctrl-C; stderr: ${stderr}`);

  const m = /interrupted after reading (\d+) rows \((\d+) indexed into ([^,]+), which is dropped; (\d+) rejected\)/.exec(stderr);
  assert.ok(m, `stderr says what was loaded: ${stderr}`);
  const [read, indexed] = [Number(m[1]), Number(m[2])];
  assert.is(m[3], partial, 'it names the version it dropped');
  assert.ok(indexed >= PARTIAL && indexed <= read && read < ROWS, `a partial load: read ${read}, indexed ${indexed}`);
  assert.match(stderr, /the alias still serves the previous complete index/);
  assert.is(await liveIndex(es, ns, 'companies'), before, 'alias unchanged');
  assert.is((await es.count({ index: aliasName(ns, 'companies') })).count, ROWS, 'the alias serves the complete previous index');
  assert.not.ok((await listVersions(es, ns, companies)).some((v) => v.index === partial), 'the half-loaded version is gone');
});

test('an interrupt during the merge: the load stops, the alias unchanged, its index deleted (which ends the merge); the next load finishes', async () => {
  const before = await liveIndex(es, ns, 'companies');
  assert.ok(before);
  const ctl = new AbortController();
  let merging = '';
  // The merge before the alias moves: with the lookalike graph built during the load (deferred, a load
  // this small serves without one; the graph's merge after the alias moves leaves the new index live).
  const stopped = await ingestFile({ ...config, mergeSegments: 1, vectorBuild: 'during' }, 'companies', small, {
    progress: null,
    es,
    signal: ctl.signal,
    onMerge: () => {
      merging = 'started';
      ctl.abort();
    },
  }).then(
    () => null,
    (err: unknown) => err,
  );
  assert.is(merging, 'started', 'the merge had started');
  assert.instance(stopped, LoadAborted);
  assert.is((stopped as LoadAborted).exitCode, EXIT.interrupted);
  const dropped = /indexed into ([^,]+), which is dropped/.exec((stopped as Error).message)?.[1];
  assert.ok(dropped, (stopped as Error).message);
  assert.is(await liveIndex(es, ns, 'companies'), before, 'alias unchanged');
  assert.not.ok((await listVersions(es, ns, companies)).some((v) => v.index === dropped), 'its index is gone');
  const next = await ingestFile(config, 'companies', small, { progress: null, es });
  assert.is(next.indexed, SMALL);
  assert.is(await liveIndex(es, ns, 'companies'), next.index);
});

test("a load never deletes an unfinished index another live load is writing", async () => {
  const before = await liveIndex(es, ns, 'companies');
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const ctl = new AbortController();
  // Load A: one row, then waits (a slow source) until released.
  async function* slow(): AsyncGenerator<{ row: number; line: number; values: Record<string, unknown> }[]> {
    const first = (await es.search({ index: aliasName(ns, 'companies'), size: 1 })).hits.hits[0];
    yield [{ row: 1, line: 2, values: { ...(first._source as Record<string, unknown>), id: first._id } }];
    await held;
  }
  const a = load({ es, namespace: ns, def: companies, records: slow() as never, sourceLabel: 'held', batchSize: 100, concurrency: 1, shape: { shards: 1, replicas: 0, mergeSegments: 0, indexSort: false } as never, report: new ErrorReport(join(tmpdir(), `held-${process.pid}.errors.csv`)), signal: ctl.signal }).catch((e: unknown) => e);
  let aIndex = '';
  for (let i = 0; i < 200 && !aIndex; i++) {
    await new Promise((r) => setTimeout(r, 50));
    aIndex = (await listVersions(es, ns, companies)).find((v) => !v.live && !v.complete && v.loader?.pid === process.pid)?.index ?? '';
  }
  assert.ok(aIndex, 'load A created its index');
  // Load B runs start to end while A is still loading.
  const b = await ingestFile(config, 'companies', small, { progress: null, es });
  assert.not.ok(b.orphans.includes(aIndex), 'not taken for an orphan');
  assert.not.ok(b.pruned.includes(aIndex), 'not pruned');
  assert.ok((await listVersions(es, ns, companies)).some((v) => v.index === aIndex), "A's index is still there");
  assert.is(await liveIndex(es, ns, 'companies'), b.index);
  ctl.abort();
  release();
  assert.instance(await a, LoadAborted);
  assert.not.ok((await listVersions(es, ns, companies)).some((v) => v.index === aIndex), 'A dropped its own index when stopped');
  assert.ok(before);
});

test.run();
