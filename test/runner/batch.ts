/**
 * Runs several pure test files (no Elasticsearch, no Redis, no servers: `@test-kind pure` in
 * their header) in one process, as uvu's own CLI does: each file's suites form one group of
 * uvu's queue, and one summary counts them all. Before and after each group it prints
 * `##part <ms> <file>` (the file's import and its suites), so the runner still times every file.
 *
 *     node --import tsx test/runner/batch.ts test/a.test.ts test/b.test.ts
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Group = unknown[];
const g = globalThis as unknown as { UVU_DEFER?: number; UVU_INDEX?: number; UVU_QUEUE?: Group[] };

g.UVU_DEFER = 1;
const uvu = await import('uvu');
const queue = (g.UVU_QUEUE ??= []);
const files = process.argv.slice(2);
const importMs: number[] = [];

for (const [i, file] of files.entries()) {
  g.UVU_INDEX = queue.length;
  queue.push([file]);
  const t0 = performance.now();
  await import(pathToFileURL(resolve(file)).href);
  importMs[i] = performance.now() - t0;
}

// Time each group: a first entry notes the start, a last one prints the file's time. uvu
// treats each entry as a suite returning [errors, ran, skipped, total].
const nothing = ['', 0, 0, 0];
queue.forEach((group, i) => {
  let t0 = 0;
  const file = files[i];
  group.splice(1, 0, async () => {
    t0 = performance.now();
    return nothing;
  });
  group.push(async () => {
    process.stdout.write(`##part ${Math.round(importMs[i] + performance.now() - t0)} ${file}\n`);
    return nothing;
  });
});

await uvu.exec();
