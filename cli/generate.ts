/**
 * `bintel generate`: seeded synthetic CSVs for every entity (the work is in ingest/generate/).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { GENERATED_FILES, checkGenerateOptions, generate, type GenerateOptions } from '../ingest/generate/index.ts';
import type { EntityName } from '../mappings/types.ts';
import { example } from './shared.ts';

type GenerateCliOptions = Omit<GenerateOptions, 'onProgress'>;

/** A commander parser for a non-negative integer option ("1000000" or "1_000_000"). */
function count(flag: string) {
  return (value: string): number => {
    const s = value.trim().replace(/_/g, '');
    const n = /^\d+$/.test(s) ? Number(s) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`${flag} must be a non-negative integer, got "${value}"`);
    return n;
  };
}

const fmtInt = (n: number): string => n.toLocaleString('en-US');

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export function registerGenerateCommand(program: Command): void {
  example(program
    .command('generate')
    .summary('write seeded synthetic CSVs for every resource')
    .description('write seeded synthetic CSVs (brokers, broker offices, companies, personnel) that `bintel ingest` loads')
    .requiredOption('--out <dir>', 'output directory (created when missing)')
    .option('--companies <n>', 'company rows', count('--companies'), 10_000)
    .option('--personnel <n>', 'personnel rows', count('--personnel'), 10_000)
    .option('--broker-offices <n>', 'broker office rows', count('--broker-offices'), 2_000)
    .option('--brokers <n>', 'broker rows', count('--brokers'), 500)
    .option('--seed <s>', 'random seed: the same seed writes byte-identical files', count('--seed'), 42)
    .action(async (o: GenerateCliOptions) => {
      checkGenerateOptions(o);
      const started = process.hrtime.bigint();
      const elapsed = (): string => `${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)}s`;
      const totals: Record<EntityName, number> = { brokers: o.brokers, 'broker-offices': o.brokerOffices, companies: o.companies, personnel: o.personnel };
      process.stderr.write(
        `generating into ${o.out} (seed ${o.seed}): ${Object.entries(totals).map(([k, v]) => `${fmtInt(v)} ${k}`).join(', ')}\n`,
      );
      const r = await generate({
        ...o,
        onProgress: (entity, rows) => {
          const total = totals[entity as EntityName] ?? rows;
          const pct = total ? ` (${Math.round((rows / total) * 100)}%)` : '';
          process.stderr.write(`  ${entity}: ${fmtInt(rows)} / ${fmtInt(total)} rows${pct}, ${elapsed()}\n`);
        },
      });
      const names = Object.keys(GENERATED_FILES) as EntityName[];
      const width = Math.max(...names.map((n) => n.length));
      let bytes = 0;
      for (const name of names) {
        bytes += r.bytes[name];
        process.stdout.write(`${name.padEnd(width)}  ${fmtInt(r.rows[name]).padStart(11)} rows  ${fmtBytes(r.bytes[name]).padStart(9)}  ${r.files[name]}\n`);
      }
      process.stdout.write(`generated ${fmtBytes(bytes)} in ${elapsed()}\n`);
    }), 'bintel generate --out data --companies 100000 --personnel 200000 --seed 7');
}
