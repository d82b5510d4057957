/**
 * `bintel generate`: seeded synthetic CSVs for every entity (the work is in ingest/generate/).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { GENERATED_FILES, checkGenerateOptions, generate, type GenerateOptions } from '../ingest/generate/index.ts';
import { FORM5500_VARIETIES, generateForm5500, type Form5500Variety } from '../ingest/form5500/generate/index.ts';
import { LAYOUT_YEARS } from '../ingest/form5500/datasets.ts';
import type { EntityName } from '../mappings/types.ts';
import { example } from './shared.ts';

type GenerateCliOptions = Omit<GenerateOptions, 'onProgress'> & { layout: 'bintel' | 'form5500'; year?: number[]; scale: number; zip?: boolean; variety: Form5500Variety; newestFiled?: number };

/** `--year 2022,2023`: plan years with a DOL layout. */
function years(value: string): number[] {
  const ys = value.split(',').map((s) => Number(s.trim()));
  const bad = ys.find((y) => !LAYOUT_YEARS.includes(y));
  if (bad !== undefined) throw new InvalidArgumentError(`--year must be plan years ${LAYOUT_YEARS[0]}-${LAYOUT_YEARS[LAYOUT_YEARS.length - 1]}, got "${value}"`);
  return ys;
}

/** `--newest-filed 0.6`: a share in (0, 1]. */
function share(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError(`--newest-filed must be a share in (0, 1], got "${value}"`);
  return n;
}

function positive(value: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError(`--scale must be a positive number, got "${value}"`);
  return n;
}

/** The DOL-layout datasets (`--layout form5500`). */
async function generateDol(o: GenerateCliOptions, elapsed: () => string): Promise<void> {
  if (!o.year) throw new InvalidArgumentError('--layout form5500 needs --year Y (or Y1,Y2)');
  process.stderr.write(`generating Form 5500 datasets for ${o.year.join(', ')} at scale ${o.scale} into ${o.out} (seed ${o.seed}, variety ${o.variety})\n`);
  let last = 0;
  const written = await generateForm5500({
    out: o.out, years: o.year, scale: o.scale, seed: o.seed, zip: o.zip, variety: o.variety, newestFiled: o.newestFiled,
    onProgress: (file, rows) => {
      if (rows - last < 100_000 && rows > last) return;
      last = rows;
      process.stderr.write(`  ${file}: ${fmtInt(rows)} rows, ${elapsed()}\n`);
    },
  });
  for (const d of written) process.stdout.write(`${d.dataset.padEnd(14)} ${d.year}  ${fmtInt(d.rows).padStart(11)} rows  ${fmtBytes(d.bytes).padStart(9)}  ${d.path}\n`);
  process.stdout.write(`generated in ${elapsed()}, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`);
}

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
    .addOption(new Option('--layout <layout>', "bintel: the project's CSVs; form5500: the DOL's public datasets (F_5500, F_5500_SF, F_SCH_A, F_SCH_A_PART1)").choices(['bintel', 'form5500']).default('bintel'))
    .option('--year <years>', 'plan year(s) of the form5500 layout, e.g. 2023 or 2022,2023', years)
    .option('--scale <s>', 'form5500 size: 1 = a real year (240k + 740k filings, 330k contracts, 300k broker lines)', positive, 0.01)
    .option('--zip', 'form5500: write <DATASET>_<YEAR>_Latest.zip files as the DOL publishes them')
    .addOption(new Option('--variety <variety>', "form5500: default writes what the importer expects; real writes the variety of real filings (pension contracts, line-10a premiums, TPAs, agents, late and final filings, a partial newest year, every field quoted: docs/data.md)").choices([...FORM5500_VARIETIES]).default('default'))
    .option('--newest-filed <share>', 'form5500 --variety real: share of plans that filed yet in the newest year (default 0.6 with several years, else 1)', share)
    .action(async (o: GenerateCliOptions) => {
      const started = process.hrtime.bigint();
      const elapsed = (): string => `${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)}s`;
      if (o.layout === 'form5500') return generateDol(o, elapsed);
      checkGenerateOptions(o);
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
