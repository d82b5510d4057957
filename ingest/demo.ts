/**
 * Demo and sandbox data: generated with the platform's generator and loaded in order,
 * unless the namespace already serves every resource from an index built with the current
 * mapping (an older one is loaded again: the data is seeded, so it is the same data).
 */
import { join } from 'node:path';
import type { Config } from '../core/config.ts';
import type { Es } from '../core/adapters/es.ts';
import { ENTITY_NAMES, entity } from '../mappings/index.ts';
import type { EntityName } from '../mappings/types.ts';
import { generate } from './generate/index.ts';
import type { OrgName } from './generate/orgnames.ts';
import { listVersions, liveIndex } from './indices.ts';
import { ingestFile } from './run.ts';
import { sandboxNamespace } from '../core/names.ts';

export interface DemoSizes {
  companies: number;
  personnel: number;
  brokerOffices: number;
  brokers: number;
}

/** Live data for `bintel up`: big enough to feel real, small enough to load in under a minute. */
export const DEMO_SIZES: DemoSizes = { companies: 50_000, personnel: 50_000, brokerOffices: 10_000, brokers: 2_000 };
/** Sandbox data that test keys read: a few thousand rows per entity. */
export const SANDBOX_SIZES: DemoSizes = { companies: 3_000, personnel: 3_000, brokerOffices: 2_000, brokers: 500 };

/**
 * Companies the README tour and docs/api.md name ("Acme Helthcare" finds the first at rank 1,
 * "acme hea" suggests it): the first rows of demo and sandbox data carry these names (the docs
 * test loads them the same way), so the examples answer what they say on a fresh machine.
 */
export const TOUR_COMPANIES: readonly OrgName[] = [{ name: 'Acme Healthcare Inc', base: 'Acme Healthcare' }];

/** Counts of every resource in a namespace; null for a resource with no live index. */
export async function resourceCounts(es: Es, ns: string): Promise<Record<EntityName, number | null>> {
  const out = {} as Record<EntityName, number | null>;
  for (const name of ENTITY_NAMES) {
    const index = await liveIndex(es, ns, name);
    out[name] = index ? (await es.count({ index })).count : null;
  }
  return out;
}

/** True when a live index of the namespace was built with an older mapping than the definitions'. */
export async function hasStaleMapping(es: Es, ns: string): Promise<boolean> {
  const versions = await Promise.all(ENTITY_NAMES.map((n) => listVersions(es, ns, entity(n))));
  return versions.some((vs) => vs.find((v) => v.live)?.stale === true);
}

/**
 * Generates (seeded) and loads data into `ns` unless every resource is already there.
 * Returns what it did, per resource.
 */
export async function ensureData(
  config: Config,
  es: Es,
  opts: { sandbox: boolean; sizes: DemoSizes; seed: number; log: (line: string) => void },
): Promise<{ loaded: boolean; counts: Record<EntityName, number | null> }> {
  const ns = opts.sandbox ? sandboxNamespace(config.namespace) : config.namespace;
  const before = await resourceCounts(es, ns);
  const what = opts.sandbox ? 'sandbox' : 'demo';
  if (ENTITY_NAMES.every((n) => (before[n] ?? 0) > 0)) {
    if (!(await hasStaleMapping(es, ns))) return { loaded: false, counts: before };
    opts.log(`${what} data was built with an older mapping; loading it again`);
  }
  const dir = join(config.home, 'data', what);
  opts.log(`generating ${what} data into ${dir}`);
  const gen = await generate({ out: dir, seed: opts.seed, ...opts.sizes, named: TOUR_COMPANIES });
  for (const name of ENTITY_NAMES) {
    const s = await ingestFile(config, name, gen.files[name], { sandbox: opts.sandbox, progress: null, es });
    opts.log(`loaded ${s.indexed} ${name} into ${s.alias}${s.rejected ? ` (${s.rejected} rejected, see ${s.report})` : ''}`);
  }
  return { loaded: true, counts: await resourceCounts(es, ns) };
}
