/**
 * Shared read-only data sets: a few named, seeded data sets that the suites which only read use
 * instead of loading their own. Each is generated once per run (the files are cached by seed and
 * size in the run's data directory, BINTEL_TEST_DATA_DIR, shared by the lanes) and loaded once
 * per lane, into a namespace of its own under the lane's (`<lane>-ds<tag>`), with merges off
 * (merging is not what these suites test; test/ingest keeps private namespaces for that).
 *
 * A suite serves it by starting its harness in that namespace:
 *
 *     ds = await useDataset('standard');
 *     h = await startHarness({ ...ds.env, BINTEL_CRAWL_THRESHOLD: '1000' });
 *
 * and derives its expectations from the data (`ds.files`), never from a seed's particular rows.
 * Every suite of a lane, whenever it runs and whatever runs beside it, must find the data set as
 * it was loaded (the first suite to ask loads it, the others of the lane wait for it); so the
 * data set cannot be written: its indices carry a write block (a write
 * fails with Elasticsearch's cluster_block_exception), a load into its namespace through the
 * helpers of test/helpers/data.ts throws, and a suite that finds its aliases moved (a load by
 * other means) fails, naming the data set.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxNamespace, aliasName } from '../../core/names.ts';
import { GENERATED_FILES, generate } from '../../ingest/generate/index.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import type { EntityName } from '../../mappings/types.ts';
import { recordLoad } from '../runner/timings.ts';
import { copyFixtures, guardNamespace, ingestFiles, type GeneratedSizes } from './data.ts';
import { createEs, type Es } from '../../core/adapters/es.ts';
import { createRedis, type RedisClient } from '../../core/adapters/redis.ts';
import { pollUntil, testConfig } from './env.ts';
import type { Config } from '../../core/config.ts';

/** A data set: its live part and, optionally, a sandbox part (what test keys read). */
export interface DatasetSpec {
  /** A few letters, for its namespace (`<lane>-ds<tag>`). */
  tag: string;
  live: GeneratedSizes;
  sandbox?: GeneratedSizes | 'fixtures';
}

/** The data sets. Adding one: a new tag; changing one changes what every suite using it reads. */
export const DATASETS = {
  /** Every resource, big enough for pages, counts and exports; no sandbox. */
  standard: { tag: 'std', live: { companies: 1500, personnel: 1500, brokerOffices: 150, brokers: 30, seed: 21 } },
  /** 20,000 companies for search quality and autocomplete; the fixtures in the sandbox. */
  large: { tag: 'lg', live: { companies: 20000, personnel: 2000, brokerOffices: 400, brokers: 60, seed: 21 }, sandbox: 'fixtures' },
} satisfies Record<string, DatasetSpec>;

export type DatasetName = keyof typeof DATASETS;

/** A loaded data set, as a suite uses it. */
export interface SharedData {
  name: DatasetName;
  /** Its namespace: start the harness with `env`. */
  namespace: string;
  env: { BINTEL_NAMESPACE: string };
  /** The generated CSV files of the live part (read-only: shared by every suite and lane). */
  files: Record<EntityName, string>;
  /** Nothing to remove: the data set lives until the end of the run. Kept so suites read alike. */
  cleanup: () => Promise<void>;
}

/** The run's data directory (the runner's), or one of this machine's temp directory. */
function dataDir(): string {
  return process.env.BINTEL_TEST_DATA_DIR || join(tmpdir(), 'bintel-test-data');
}

const fingerprint = (spec: DatasetSpec): string => createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12);

/** The generated files of `sizes`, made once (several processes may race: the first rename wins). */
async function generatedFiles(sizes: GeneratedSizes, base = dataDir()): Promise<Record<EntityName, string>> {
  const key = `${sizes.companies}-${sizes.personnel}-${sizes.brokerOffices}-${sizes.brokers}-s${sizes.seed}`;
  const dir = join(base, key);
  const files = Object.fromEntries(ENTITY_NAMES.map((n) => [n, join(dir, GENERATED_FILES[n])])) as Record<EntityName, string>;
  if (existsSync(join(dir, 'complete'))) return files;
  await mkdir(base, { recursive: true });
  const tmp = await mkdtemp(join(base, `.${key}-`));
  try {
    await generate({ out: tmp, ...sizes });
    await writeFile(join(tmp, 'complete'), '');
    await rename(tmp, dir).catch((err: NodeJS.ErrnoException) => {
      // Another process finished first: its files are the same (the generator is seeded).
      if (!existsSync(join(dir, 'complete'))) throw err;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return files;
}

/** The indices behind the data set's aliases, by namespace and entity (absent ones left out). */
async function aliasTargets(es: Es, namespaces: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ns of namespaces) {
    for (const name of ENTITY_NAMES) {
      const alias = aliasName(ns, name);
      const res = (await es.indices.getAlias({ name: alias }, { ignore: [404] })) as Record<string, unknown>;
      const index = Object.keys(res ?? {}).find((k) => k !== 'error' && k !== 'status');
      if (index) out[alias] = index;
    }
  }
  return out;
}

const markerKey = (ns: string): string => `${ns}:test-dataset`;
/** The longest a load of a data set may take before another file of the lane gives up waiting. */
const LOAD_LOCK_MS = 5 * 60_000;

/**
 * The named data set, loaded into this lane's namespace for it on first use (by any suite of
 * the lane), reused afterwards. Throws when a suite before this one changed it.
 */
export async function useDataset(name: DatasetName): Promise<SharedData> {
  const spec: DatasetSpec = DATASETS[name];
  const config = testConfig();
  // The lane's namespace (the runner's), under which each file has its own: one copy per lane.
  const namespace = `${process.env.BINTEL_TEST_LANE_NAMESPACE || config.namespace}-ds${spec.tag}`;
  const namespaces = spec.sandbox ? [namespace, sandboxNamespace(namespace)] : [namespace];
  const t0 = performance.now();
  const files = await generatedFiles(spec.live);
  // Clients of its own, closed before it returns: the suite's own stay its to close.
  const es = createEs(config);
  const redis = createRedis(config);
  try {
    return await loadOrReuse({ name, spec, namespace, namespaces, files, es, redis, t0 });
  } catch (err) {
    // Said here too: uvu 0.5.6 swallows an error thrown in a before() hook.
    console.error(`useDataset(${name}): ${(err as Error).stack}`);
    throw err;
  } finally {
    redis.disconnect();
    await es.close();
  }
}

async function loadOrReuse(a: { name: DatasetName; spec: DatasetSpec; namespace: string; namespaces: string[]; files: Record<EntityName, string>; es: Es; redis: RedisClient; t0: number }): Promise<SharedData> {
  const { name, spec, namespace, namespaces, files, es, redis, t0 } = a;
  // Files of a lane run side by side: one loads the data set, the others wait for its marker.
  let marker = await redis.get(markerKey(namespace));
  const lock = `${markerKey(namespace)}:loading`;
  if (!marker && (await redis.set(lock, String(process.pid), 'PX', LOAD_LOCK_MS, 'NX')) !== 'OK') {
    marker = await pollUntil(() => redis.get(markerKey(namespace)), { what: `shared data set ${name}, loaded by another file of this lane`, timeoutMs: LOAD_LOCK_MS, everyMs: 200 });
  }
  const shared: SharedData = { name, namespace, env: { BINTEL_NAMESPACE: namespace }, files, cleanup: async () => {} };
  if (marker) {
    const was = JSON.parse(marker) as { fingerprint: string; aliases: Record<string, string> };
    const now = await aliasTargets(es, namespaces);
    if (was.fingerprint !== fingerprint(spec)) throw new Error(`shared data set ${name}: loaded from another definition in this run's namespace ${namespace}`);
    if (JSON.stringify(now) !== JSON.stringify(was.aliases)) {
      throw new Error(`shared data set ${name} was changed by an earlier suite of this lane: its aliases moved from ${JSON.stringify(was.aliases)} to ${JSON.stringify(now)} (a suite that loads data needs a namespace of its own)`);
    }
    guardNamespace.protect(namespaces, name);
    recordLoad(`dataset ${name}`, 'reused', performance.now() - t0);
    return shared;
  }
  try {
    return await load({ name, spec, namespace, namespaces, files, es, redis, t0 });
  } finally {
    await redis.del(lock);
  }
}

async function load(a: { name: DatasetName; spec: DatasetSpec; namespace: string; namespaces: string[]; files: Record<EntityName, string>; es: Es; redis: RedisClient; t0: number }): Promise<SharedData> {
  const { name, spec, namespace, namespaces, files, es, redis, t0 } = a;
  const config = testConfig();
  const shared: SharedData = { name, namespace, env: { BINTEL_NAMESPACE: namespace }, files, cleanup: async () => {} };
  const target = { config: { ...config, namespace, mergeSegments: 0 } };
  await ingestFiles(target, files, { es }, spec.live);
  if (spec.sandbox) {
    const sandbox = spec.sandbox === 'fixtures' ? await copyFixtures() : { files: await generatedFiles(spec.sandbox), cleanup: async () => {} };
    try {
      await ingestFiles(target, sandbox.files, { sandbox: true, es }, spec.sandbox === 'fixtures' ? null : spec.sandbox);
    } finally {
      await sandbox.cleanup();
    }
  }
  const aliases = await aliasTargets(es, namespaces);
  await es.indices.putSettings({ index: Object.values(aliases).join(','), settings: { 'index.blocks.write': true } });
  await redis.set(markerKey(namespace), JSON.stringify({ fingerprint: fingerprint(spec), aliases }));
  guardNamespace.protect(namespaces, name);
  recordLoad(`dataset ${name}`, 'loaded', performance.now() - t0);
  return shared;
}

/** Generates the files of every data set into `dir` (the runner does it while Elasticsearch starts). */
export async function generateDatasets(dir: string): Promise<void> {
  for (const spec of Object.values(DATASETS) as DatasetSpec[]) {
    await generatedFiles(spec.live, dir);
    if (spec.sandbox && spec.sandbox !== 'fixtures') await generatedFiles(spec.sandbox, dir);
  }
}

/**
 * The data sets loaded under `lanes` (lane namespaces) whose aliases moved since they were loaded
 * (a suite that wrote into one after every other had read it), as one message each; the runner
 * fails the run on any.
 */
export async function changedDatasets(config: Config, lanes: string[]): Promise<string[]> {
  const es = createEs(config);
  const redis = createRedis(config);
  try {
    const problems: string[] = [];
    for (const lane of lanes) {
      for (const [name, spec] of Object.entries(DATASETS) as [DatasetName, DatasetSpec][]) {
        const namespace = `${lane}-ds${spec.tag}`;
        const marker = await redis.get(markerKey(namespace));
        if (!marker) continue;
        const was = JSON.parse(marker) as { aliases: Record<string, string> };
        const now = await aliasTargets(es, spec.sandbox ? [namespace, sandboxNamespace(namespace)] : [namespace]);
        if (JSON.stringify(now) !== JSON.stringify(was.aliases)) problems.push(`shared data set ${name} of ${lane} was changed by a suite (its aliases moved); a suite that loads data needs a namespace of its own`);
      }
    }
    return problems;
  } finally {
    redis.disconnect();
    await es.close();
  }
}
