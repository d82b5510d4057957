/**
 * How `bintel import form5500` switches what is served (issue 36, item 9): the four resources
 * load into new versions first and their aliases move together in one `_aliases` request, a
 * failure in any load switches none, an import that would swap in an empty resource is refused
 * unless allowed, and rows that other sources loaded are not replaced without saying so.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { createEs, type Es } from '../../core/adapters/es.ts';
import { aliasName, versionPattern } from '../../core/names.ts';
import { ENTITY_NAMES, entity } from '../../mappings/index.ts';
import type { EntityName } from '../../mappings/types.ts';
import { generateForm5500 } from '../../ingest/form5500/generate/index.ts';
import { importForm5500, type ImportFlags } from '../../ingest/form5500/import.ts';
import { listVersions } from '../../ingest/indices.ts';
import { LoadAborted } from '../../ingest/load.ts';
import { ingestFile } from '../../ingest/run.ts';

const t = suite('import form5500: one switch');
const runConfig = loadConfig();
const config = loadConfig({ ...process.env, BINTEL_NAMESPACE: `${runConfig.namespace}-f5500sw` });
const ns = config.namespace;
const es = createEs(config);
let dir = '';

const run = (inputs: string[], flags: ImportFlags = {}) => importForm5500(config, inputs, { progress: null, log: null, errors: join(dir, 'report'), today: '2024-01-15', es, ...flags });

/** The index behind each alias (null: none). */
async function live(): Promise<Record<EntityName, string | null>> {
  const res = (await es.indices.getAlias({ name: ENTITY_NAMES.map((n) => aliasName(ns, n)).join(',') }, { ignore: [404] })) as Record<string, { aliases?: Record<string, unknown> }>;
  const out = Object.fromEntries(ENTITY_NAMES.map((n) => [n, null])) as Record<EntityName, string | null>;
  for (const [index, v] of Object.entries(res ?? {})) {
    for (const a of Object.keys(v?.aliases ?? {})) {
      const name = ENTITY_NAMES.find((n) => aliasName(ns, n) === a);
      if (name) out[name] = index;
    }
  }
  return out;
}

async function refused(p: Promise<unknown>): Promise<LoadAborted> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, LoadAborted, String(err));
    return err as LoadAborted;
  }
  throw new assert.Assertion({ message: 'expected the import to be refused', generated: false, operator: 'refused', expects: 'LoadAborted', actual: 'success' });
}

/** Every version of every resource (names). */
async function versions(): Promise<string[]> {
  const out: string[] = [];
  for (const n of ENTITY_NAMES) out.push(...(await listVersions(es, ns, entity(n))).map((v) => v.index));
  return out.sort();
}

async function dropAll(): Promise<void> {
  for (const n of ENTITY_NAMES) {
    const names = Object.keys(await es.indices.get({ index: versionPattern(ns, n) }).catch(() => ({})));
    if (names.length) await es.indices.delete({ index: names.join(',') });
  }
}

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'f5500-switch-'));
  await generateForm5500({ out: join(dir, 'dol'), years: [2023], scale: 0.0004, seed: 11 });
  await dropAll();
});
t.after(async () => {
  await dropAll().catch(() => {});
  await es.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

t('the four aliases move together in one request: never new brokers beside old companies', async () => {
  await run([join(dir, 'dol')]);
  const before = await live();
  for (const n of ENTITY_NAMES) assert.ok(before[n], `${n} is live after the first import`);
  const seen = new Set<string>();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      seen.add(JSON.stringify(await live()));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    await run([join(dir, 'dol')]);
  } finally {
    polling = false;
    await poller;
  }
  const after = await live();
  seen.add(JSON.stringify(after));
  for (const n of ENTITY_NAMES) assert.is.not(after[n], before[n], `${n} moved to its new version`);
  const mixed = [...seen].map((s) => JSON.parse(s) as Record<EntityName, string | null>).filter((s) => {
    const moved = ENTITY_NAMES.filter((n) => s[n] !== before[n]);
    return moved.length !== 0 && moved.length !== ENTITY_NAMES.length;
  });
  assert.equal(mixed, [], 'no state with some resources switched and others not');
});

t('a failure in the companies load switches nothing and removes the new versions', async () => {
  const before = await live();
  const kept = await versions();
  const ctl = new AbortController();
  // Stops the import as soon as the companies load writes its first rows (as Ctrl-C would).
  const spy = new Proxy(es, {
    get(target, prop, receiver) {
      if (prop !== 'transport') return Reflect.get(target, prop, receiver);
      const transport = target.transport;
      return new Proxy(transport, {
        get(tt, p, r) {
          if (p !== 'request') return Reflect.get(tt, p, r);
          return (params: { path?: string }, opts?: unknown) => {
            if (String(params.path).includes(`${ns}-companies-v`) && String(params.path).endsWith('/_bulk')) ctl.abort();
            return tt.request(params as never, opts as never);
          };
        },
      });
    },
  }) as Es;
  await refused(run([join(dir, 'dol')], { es: spy, signal: ctl.signal }));
  assert.ok(ctl.signal.aborted, 'the companies load ran');
  assert.equal(await live(), before, 'every alias still serves what it served');
  assert.equal(await versions(), kept, 'the new versions of brokers and offices were removed');
});

t('an import that would swap in empty brokers and offices is refused, naming them; --allow-empty allows it', async () => {
  const before = await live();
  const kept = await versions();
  const short = (await readdir(join(dir, 'dol'))).find((f) => /F_5500_SF/i.test(f));
  assert.ok(short, 'the fixture has a short-form file');
  const err = await refused(run([join(dir, 'dol', short as string)]));
  assert.match(err.message, /brokers: 0 rows/);
  assert.match(err.message, /broker-offices: 0 rows/);
  assert.match(err.message, /F_SCH_A_PART1/);
  assert.match(err.message, /--allow-empty/);
  assert.not.match(err.message, /companies: 0 rows/);
  assert.equal(await live(), before, 'nothing switched');
  assert.equal(await versions(), kept, 'no new version left behind');
  const s = await run([join(dir, 'dol', short as string)], { allowEmpty: true });
  assert.is(s.loads.find((l) => l.entity === 'brokers')?.indexed, 0);
  const after = await live();
  for (const n of ENTITY_NAMES) assert.is.not(after[n], before[n], `${n} switched with --allow-empty`);
});

t('rows another source loaded are not replaced without --replace-other-sources, which names how many', async () => {
  await run([join(dir, 'dol')]);
  const csv = join(dir, 'brokers.csv');
  await writeFile(csv, 'id,broker_name,brokerage_class\nother-1,Hand Loaded Brokers LLC,local broker\nother-2,Another Hand Loaded LLC,local broker\n');
  await ingestFile(config, 'brokers', csv, { progress: null, es, errors: join(dir, 'brokers.errors.csv') });
  const before = await live();
  const err = await refused(run([join(dir, 'dol')]));
  assert.match(err.message, /brokers: 2 rows/);
  assert.match(err.message, /--replace-other-sources/);
  assert.not.match(err.message, /companies:/);
  assert.equal(await live(), before, 'nothing switched');
  await run([join(dir, 'dol')], { replaceOtherSources: true });
  const after = await live();
  for (const n of ENTITY_NAMES) assert.is.not(after[n], before[n], `${n} switched with --replace-other-sources`);
});

t.run();
