/**
 * `bintel import form5500 DIR_OR_ZIP...`: wiring only (the work is in ingest/form5500/).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { example } from './shared.ts';
import { loadConfig } from '../core/config.ts';
import { LoadAborted } from '../ingest/load.ts';
import { importForm5500, type ImportSummary } from '../ingest/form5500/import.ts';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function printSummary(s: ImportSummary): void {
  const c = s.counts;
  const lines = [
    `read ${s.files.length} files in ${(s.readMs / 1000).toFixed(1)} s: ${c.filings} filings (${c.dfe} DFE skipped, ${c.superseded} superseded by a later or amended filing, ${c.noEin} without an EIN), ${c.contracts} Schedule A contracts, ${c.lines} Part I broker lines (${c.firmOnlyLines} without an address: firm only; ${c.unnamedLines} without a name: skipped)`,
    ...(s.damagedReport ? [`  damaged rows are listed in ${s.damagedReport}`] : []),
    ...(s.skipped.length ? [`  skipped ${s.skipped.length} files that are not datasets`] : []),
    `resolved in ${(s.buildMs / 1000).toFixed(1)} s`,
    ...s.loads.map((l) => `${l.entity}: read ${l.read} = indexed ${l.indexed} + rejected ${l.rejected} in ${(l.stageMs / 1000).toFixed(1)} s; ${l.index} is live behind ${l.alias}${l.previous ? ` (previous ${l.previous} kept for rollback)` : ''}${l.report ? `; rejected rows in ${l.report}` : ''}`),
    `loaded and switched in ${(s.loadMs / 1000).toFixed(1)} s`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerImportCommand(program: Command): void {
  const cmd = program
    .command('import')
    .description('build companies, personnel, broker offices and brokers from public datasets, then load them (the four aliases switched together in one request)')
    .argument('<source>', 'form5500: the DOL Form 5500 datasets (F_5500, F_5500_SF, F_SCH_A, F_SCH_A_PART1 of any year 2009 on)', (v) => {
      if (v !== 'form5500') throw new InvalidArgumentError('expected form5500');
      return v;
    })
    .argument('<inputs...>', 'zips as downloaded, directories of extracted CSVs, or CSV files; several years at once')
    .option('--sandbox', 'load into the sandbox namespace that test keys read')
    .option('--errors <prefix>', 'prefix of the report files (<prefix>.damaged.csv, <prefix>.<resource>.errors.csv)', 'form5500-import')
    .option('--today <date>', 'day the renewal window is measured from (YYYY-MM-DD; default today)')
    .option('--batch-size <n>', 'documents per bulk request', positiveInt, 2000)
    .option('--concurrency <n>', 'bulk requests in flight', positiveInt, 2)
    .option('--shards <n>', 'primary shards of the new indices', positiveInt)
    .option('--allow-empty', 'switch to a resource with no rows (refused by default: the short-form file alone builds no brokers or offices)')
    .option('--replace-other-sources', 'replace rows that another source loaded (refused by default, naming how many rows would go)')
    .action(async (_source: string, inputs: string[], o) => {
      try {
        printSummary(await importForm5500(loadConfig(), inputs, o));
      } catch (err) {
        if (!(err instanceof LoadAborted)) throw err;
        process.stderr.write(`bintel: ${err.message}\nbintel: aborted; ${err.served ? 'the new indices are served (see above)' : 'the aliases still serve the previous complete indices'}\n`);
        process.exit(err.exitCode);
      }
    });
  example(cmd, 'bintel import form5500 ~/Downloads/F_5500_2023_Latest.zip ~/Downloads/F_5500_SF_2023_Latest.zip ~/Downloads/F_SCH_A_2023_Latest.zip ~/Downloads/F_SCH_A_PART1_2023_Latest.zip');
}
