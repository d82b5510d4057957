/**
 * `bintel ingest`, `bintel reindex`, `bintel indices` and `bintel rollback`: wiring only.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { createEs } from '../core/adapters/es.ts';
import { ENTITIES, ENTITY_NAMES, entity } from '../mappings/index.ts';
import { listVersions, rollback } from '../ingest/indices.ts';
import { LoadAborted, type LoadSummary } from '../ingest/load.ts';
import { ingestFile, namespaceFor, reindexResource } from '../ingest/run.ts';
import { example } from './example.ts';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}
function resourceArg(v: string): string {
  if (!ENTITY_NAMES.includes(v as never)) throw new InvalidArgumentError(`expected one of ${ENTITY_NAMES.join(', ')}`);
  return v;
}

function printSummary(verb: string, s: LoadSummary & { report: string | null }): void {
  const secs = s.elapsedMs / 1000;
  const lines = [
    `${verb} ${s.entity}: read ${s.read} = indexed ${s.indexed} + rejected ${s.rejected}`,
    `  index ${s.index} (${s.docs} documents) is now live behind ${s.alias}${s.previous ? `; previous ${s.previous} kept for rollback` : ''}`,
    `  ${secs.toFixed(1)} s, ${Math.round(s.read / Math.max(secs, 0.001))} rows/s`,
  ];
  if (s.vectors) lines.push(`  rows served after ${(s.servedMs / 1000).toFixed(1)} s (${Math.round(s.read / Math.max(s.servedMs / 1000, 0.001))} rows/s); lookalike graph ${s.vectors}${s.vectors === 'ready' ? ` after ${secs.toFixed(1)} s` : ''}`);
  if (s.pruned.length) lines.push(`  deleted older versions: ${s.pruned.join(', ')}`);
  if (s.report) lines.push(`  rejected rows are listed in ${s.report}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Turns a LoadAborted into its exit code with a clear message. */
async function run(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof LoadAborted) {
      process.stderr.write(`bintel: ${err.message}\nbintel: ${err.served ? 'stopped; the alias serves the new index' : 'aborted; the alias still serves the previous complete index'}\n`);
      process.exit(err.exitCode);
    }
    throw err;
  }
}

const loadOptions = (c: Command) =>
  c
    .option('--sandbox', 'load into the sandbox namespace that test keys read')
    .option('--batch-size <n>', 'documents per bulk request', positiveInt, 2000)
    .option('--concurrency <n>', 'bulk requests in flight', positiveInt, 2)
    .option('--shards <n>', 'primary shards of the new index (default $BINTEL_SHARDS or 1)', positiveInt)
    .option('--replicas <n>', 'replicas of the new index once loaded (default $BINTEL_REPLICAS or 0)', nonNegativeInt);

export function registerIngestCommands(program: Command): void {
  example(loadOptions(
    program
      .command('ingest')
      .summary("load a CSV file into a new version of a resource's index")
      .description(`stream a CSV file into a new version of a resource's index, then swap the alias (load order: ${ENTITY_NAMES.join(', ')})`)
      .argument('<resource>', ENTITY_NAMES.join(' | '), resourceArg)
      .argument('<file>', 'CSV file with a header line'),
  )
    .option('--errors <file>', 'error report path (default <file>.errors.csv)')
    .option('--ignore-unknown-columns', 'skip columns the resource does not define instead of refusing the file')
    .option('--allow-empty', 'accept a header-only file and serve an empty index')
    .addOption(new Option('--parser <parser>', 'CSV parser: bintel (fast, checked against fast-csv) or fast-csv (reference, slower)').choices(['bintel', 'fast-csv']).default('bintel'))
    .action((resource: string, file: string, o) =>
      run(async () => {
        const s = await ingestFile(loadConfig(), resource, file, { ...o, ignoreUnknownColumns: o.ignoreUnknownColumns });
        printSummary('ingest', s);
      }),
    ), 'bintel ingest companies data/companies.csv --batch-size 5000', 'bintel ingest personnel data/personnel.csv --sandbox --errors rejected.csv');

  example(loadOptions(
    program
      .command('reindex')
      .summary('rebuild a resource from its live index with the current mapping')
      .description('rebuild a resource from its live index with the current mapping and current parents, then swap the alias')
      .argument('<resource>', ENTITY_NAMES.join(' | '), resourceArg),
  ).action((resource: string, o) =>
    run(async () => {
      printSummary('reindex', await reindexResource(loadConfig(), resource, o));
    }),
  ), 'bintel reindex personnel');

  example(program
    .command('indices')
    .summary('list the versions of each resource index')
    .description('list the versions of each resource index: live, complete, kept for rollback')
    .argument('[resource]', ENTITY_NAMES.join(' | '), resourceArg)
    .option('--sandbox', 'the sandbox namespace')
    .option('--json', 'JSON output')
    .action(async (resource: string | undefined, o: { sandbox?: boolean; json?: boolean }) => {
      const config = loadConfig();
      const es = createEs(config);
      const ns = namespaceFor(config, o.sandbox);
      const defs = resource ? [entity(resource)] : ENTITIES;
      const all: Record<string, unknown> = {};
      for (const def of defs) {
        const versions = await listVersions(es, ns, def);
        all[def.name] = versions;
        if (o.json) continue;
        process.stdout.write(`${aliasName(ns, def.name)}\n`);
        if (!versions.length) process.stdout.write('  (no index: load it with bintel ingest)\n');
        for (const v of versions) {
          const state = v.live ? 'LIVE' : v.complete ? 'rollback' : 'incomplete';
          process.stdout.write(`  ${state.padEnd(10)} ${v.index}  ${v.docs} docs  ${(v.sizeBytes / 1e6).toFixed(1)} MB  ${v.createdAt}${v.stale ? '  (older mapping: bintel reindex)' : ''}\n`);
        }
      }
      if (o.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    }), 'bintel indices companies --json');

  example(program
    .command('rollback')
    .summary('point the alias back at the previous complete version')
    .description('point the alias back at the previous complete version of a resource')
    .argument('<resource>', ENTITY_NAMES.join(' | '), resourceArg)
    .option('--sandbox', 'the sandbox namespace')
    .action(async (resource: string, o: { sandbox?: boolean }) => {
      const config = loadConfig();
      const r = await rollback(createEs(config), namespaceFor(config, o.sandbox), entity(resource));
      process.stdout.write(`rolled back ${resource}: ${r.from} → ${r.to}\n`);
    }), 'bintel rollback companies --sandbox');
}
