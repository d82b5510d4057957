/**
 * Test data set-up shared by the suites: the fixtures of test/fixtures and seeded generated
 * data sets, each written to a temp directory (ingest writes its error report beside the file)
 * and loaded into the run's namespace in load order (`ENTITY_NAMES`). Every loader returns a
 * way to remove its directory; the indices are the runner's to remove.
 */
import { appendFile, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../core/config.ts';
import { createEs, type Es } from '../../core/adapters/es.ts';
import { generate, type GenerateOptions } from '../../ingest/generate/index.ts';
import { ingestFile } from '../../ingest/run.ts';
import { ENTITY_NAMES } from '../../mappings/index.ts';
import { sandboxNamespace } from '../../core/names.ts';
import type { EntityName } from '../../mappings/types.ts';
import { recordLoad } from '../runner/timings.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

/** Where data is loaded: anything carrying the run's configuration (a Harness, or `{ config: testConfig() }`). */
export interface LoadTarget {
  config: Config;
}

/** A data set on disk: its directory, one CSV per entity, and the function that removes them. */
export interface DataFiles {
  dir: string;
  files: Record<EntityName, string>;
  cleanup: () => Promise<void>;
}

/** The row counts and seed of a generated data set (the options of `generate` but `out`). */
export type GeneratedSizes = Pick<GenerateOptions, 'companies' | 'personnel' | 'brokerOffices' | 'brokers' | 'seed' | 'named'>;

/** How a data set is loaded. */
export interface LoadOptions {
  /** Load into the sandbox namespace (what test keys read) instead of the live one. */
  sandbox?: boolean;
  /** The Elasticsearch client to load with; by default one is opened for the load and closed after it. */
  es?: Es;
}

/**
 * Copies test/fixtures (one CSV per entity) into a new temp directory. `append` adds text to
 * the end of a copy, e.g. an extra row: `{ brokers: 'b3,Smith Benefits Group Inc.,...\n' }`.
 */
export async function copyFixtures(opts: { append?: Partial<Record<EntityName, string>> } = {}): Promise<DataFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'bintel-fixtures-'));
  const files = {} as Record<EntityName, string>;
  for (const name of ENTITY_NAMES) {
    files[name] = join(dir, `${name}.csv`);
    await copyFile(join(FIXTURES, `${name}.csv`), files[name]);
    const extra = opts.append?.[name];
    if (extra) await appendFile(files[name], extra);
  }
  return { dir, files, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The namespaces of the shared data sets (test/helpers/datasets.ts) this process uses: a load
 * into one of them throws, since every later suite of the lane reads what it left.
 */
export const guardNamespace = {
  protected: new Map<string, string>(),
  protect(namespaces: string[], dataset: string): void {
    for (const ns of namespaces) this.protected.set(ns, dataset);
  },
  check(ns: string): void {
    const dataset = this.protected.get(ns);
    if (dataset) throw new Error(`refusing to load into ${ns}: it holds the shared data set "${dataset}", read by other suites (load into a namespace of the suite's own)`);
  },
};

/**
 * Ingests `files` in load order, skipping the entities `only` leaves out.
 * @internal shared by the loaders below.
 */
async function ingestAll(target: LoadTarget, files: Record<EntityName, string>, opts: LoadOptions, only: (name: EntityName) => boolean): Promise<void> {
  guardNamespace.check(opts.sandbox ? sandboxNamespace(target.config.namespace) : target.config.namespace);
  const es = opts.es ?? createEs(target.config);
  try {
    for (const name of ENTITY_NAMES.filter(only)) await ingestFile(target.config, name, files[name], { progress: null, sandbox: opts.sandbox, es });
  } finally {
    if (!opts.es) await es.close();
  }
}

/** Rows of each entity in a generated data set of `sizes`. */
const rowsOf = (sizes: GeneratedSizes): Record<EntityName, number> => ({ brokers: sizes.brokers, 'broker-offices': sizes.brokerOffices, companies: sizes.companies, personnel: sizes.personnel });

/**
 * Ingests data files in load order: all of them (fixtures, `sizes` null), or the entities a
 * generated data set of `sizes` has rows of. For test/helpers/datasets.ts.
 */
export function ingestFiles(target: LoadTarget, files: Record<EntityName, string>, opts: LoadOptions, sizes: GeneratedSizes | null): Promise<void> {
  return ingestAll(target, files, opts, (name) => !sizes || rowsOf(sizes)[name] > 0);
}

/**
 * Loads test/fixtures (brokers, broker offices, companies, personnel) into the target's
 * namespace, in load order, from a temp copy (see `copyFixtures` for `append`).
 * Returns a function that removes the copy.
 */
export async function loadFixtures(target: LoadTarget, opts: LoadOptions & { append?: Partial<Record<EntityName, string>> } = {}): Promise<() => Promise<void>> {
  const data = await copyFixtures({ append: opts.append });
  try {
    const t0 = performance.now();
    await ingestAll(target, data.files, opts, () => true);
    recordLoad(`fixtures${opts.append ? ' (appended)' : ''}${opts.sandbox ? ' sandbox' : ''}`, 'loaded', performance.now() - t0);
  } catch (err) {
    await data.cleanup();
    throw err;
  }
  return data.cleanup;
}

/**
 * Generates a seeded data set of the given sizes into a new temp directory and loads it into
 * the target's namespace in load order. An entity generated with no rows is not loaded (its
 * resource stays absent, as when a suite loads only the parents of companies).
 */
export async function loadGenerated(target: LoadTarget, sizes: GeneratedSizes & LoadOptions): Promise<DataFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'bintel-generated-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const { companies, personnel, brokerOffices, brokers, seed, named } = sizes;
    const t0 = performance.now();
    const gen = await generate({ out: dir, companies, personnel, brokerOffices, brokers, seed, named });
    await ingestAll(target, gen.files, sizes, (name) => gen.rows[name] > 0);
    recordLoad(`generated ${companies}/${personnel}/${brokerOffices}/${brokers} seed ${seed}${sizes.sandbox ? ' sandbox' : ''}`, 'loaded', performance.now() - t0);
    return { dir, files: gen.files, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
