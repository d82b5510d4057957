/**
 * The coverage table of the Form 5500 import: `npm run coverage:form5500 -- [--years 2023]
 * [--scale 0.02] [--seed 42] [--today YYYY-MM-DD] [--variety real|default] [INPUT...]`.
 *
 * Reads the DOL datasets (the inputs given, else a year generated in the exact DOL layout at
 * the scale given, zipped as the DOL publishes them), resolves them exactly as
 * `bintel import form5500` does (the same reader, collector and builder; nothing is loaded)
 * and prints, per resource, the share of rows that have each field (not null, not empty, not
 * an empty list), as markdown.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { csvFields, ENTITY_NAMES, entity } from '../mappings/index.ts';
import { generateForm5500 } from '../ingest/form5500/generate/index.ts';
import { ADD, emptyCollected } from '../ingest/form5500/collect.ts';
import { buildAll } from '../ingest/form5500/build.ts';
import { DATASETS } from '../ingest/form5500/datasets.ts';
import { findDatasetFiles, readDataset } from '../ingest/form5500/read.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    years: { type: 'string', default: '2023' }, scale: { type: 'string', default: '0.02' }, seed: { type: 'string', default: '42' },
    today: { type: 'string', default: new Date().toISOString().slice(0, 10) }, variety: { type: 'string', default: 'real' },
  },
});

const has = (v: unknown) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);

async function main(): Promise<void> {
  const dir = positionals.length ? null : await mkdtemp(join(tmpdir(), 'bintel-f5500-coverage-'));
  const c = emptyCollected();
  try {
    if (args.variety !== 'real' && args.variety !== 'default') throw new Error(`--variety is real or default, got ${args.variety}`);
    if (dir) await generateForm5500({ out: dir, years: args.years.split(',').map(Number), scale: Number(args.scale), seed: Number(args.seed), zip: true, variety: args.variety });
    const found = await findDatasetFiles(dir ? [dir] : positionals);
    const files = [...found.files].sort((a, b) => DATASETS.indexOf(a.dataset) - DATASETS.indexOf(b.dataset) || a.year - b.year);
    for (const file of files) for await (const batch of readDataset(file, () => {})) for (const r of batch) ADD[file.dataset](c, file.dataset, file.year, r.facts);
    c.endReading();
    const built = buildAll(c, args.today);
    const source = dir ? `generated DOL-layout data (variety ${args.variety}), plan year(s) ${args.years}, scale ${args.scale}, seed ${args.seed}` : positionals.join(', ');
    process.stdout.write(`Coverage after a Form 5500 import (${source}; renewal window from ${args.today}): share of rows having each field.\n`);
    for (const name of ENTITY_NAMES) {
      const fields = csvFields(entity(name)).map((f) => f.name).filter((f) => f !== 'id');
      const counts = new Map(fields.map((f) => [f, 0]));
      let rows = 0;
      for (const doc of built[name].rows()) {
        rows++;
        for (const f of fields) if (has(doc[f])) counts.set(f, (counts.get(f) ?? 0) + 1);
      }
      process.stdout.write(`\n**${name}** (${rows.toLocaleString('en-US')} rows)\n\n| field | rows having it | share |\n|---|---:|---:|\n`);
      for (const f of fields) {
        const n = counts.get(f) ?? 0;
        process.stdout.write(`| ${f} | ${n.toLocaleString('en-US')} | ${rows ? ((100 * n) / rows).toFixed(1) : '0.0'}% |\n`);
      }
    }
  } finally {
    c.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

await main();
