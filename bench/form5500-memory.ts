/**
 * Where a Form 5500 import's memory goes, without Elasticsearch: `npm run bench:form5500-memory -- DIR`.
 * Reads DIR's dataset files as the import does (the same heap guard), resolves them, then takes
 * every built row of the four resources in load order (as the load would, without sending them),
 * and prints the heap, the memory outside it and the RSS after each step (a full collection
 * before each figure, so it is the live set) and the process's peak RSS so far.
 */
import { buildAll } from '../ingest/form5500/build.ts';
import { ADD, emptyCollected } from '../ingest/form5500/collect.ts';
import { DATASETS } from '../ingest/form5500/datasets.ts';
import { findDatasetFiles, readDataset } from '../ingest/form5500/read.ts';
import { collectGarbage, heapGuard } from '../ingest/memory.ts';
import { ENTITY_NAMES } from '../mappings/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench:form5500-memory -- DIR (a folder of Form 5500 dataset files)');
const mb = (n: number) => Math.round(n / 2 ** 20);
function report(step: string): void {
  const maxBefore = process.resourceUsage().maxRSS / 1024;
  collectGarbage();
  const m = process.memoryUsage();
  process.stdout.write(`${step.padEnd(28)} heap ${String(mb(m.heapUsed)).padStart(4)}  outside ${String(mb(m.external)).padStart(4)}  rss ${String(mb(m.rss)).padStart(4)}  peak ${Math.round(maxBefore)} MB\n`);
}
const guard = heapGuard({ ceilingMb: 64 });
const found = await findDatasetFiles([dir]);
const c = emptyCollected();
report('start');
for (const file of [...found.files].sort((a, b) => DATASETS.indexOf(a.dataset) - DATASETS.indexOf(b.dataset))) {
  const add = ADD[file.dataset];
  for await (const batch of readDataset(file, () => {})) {
    guard();
    for (const r of batch) add(c, file.dataset, file.year, r.facts, file.label);
  }
  report(`read ${file.dataset}`);
}
c.endReading(guard);
report('reading ended (resolved)');
const built = buildAll(c, '2026-11-28', guard);
report('built');
for (const name of ENTITY_NAMES) {
  let n = 0;
  for (const _ of built[name].rows()) if (++n % 1000 === 0) guard();
  report(`${name} taken (${n})`);
}
c.close();
