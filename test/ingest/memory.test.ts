/**
 * The ingest heap guard: a live set larger than its ceiling (a parent cache filling up during a
 * 1M-row load) does not turn it into a full collection on every call (the guard before this test
 * made 200 in 200 calls).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { heapGuard } from '../../ingest/memory.ts';

/** Full (mark-compact) collections while `fn` runs. */
async function majorCollections(fn: () => void): Promise<number> {
  let n = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) n++;
  });
  obs.observe({ entryTypes: ['gc'] });
  fn();
  // GC entries are delivered asynchronously.
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  return n;
}

test('a live set above the ceiling does not force a collection on every call', async () => {
  const guard = heapGuard({ ceilingMb: 4 });
  // About 32 MB that stays alive throughout, eight times the ceiling.
  const live = Array.from({ length: 32 }, (_, i) => new Array(128 * 1024).fill(i));
  const calls = 200;
  const n = await majorCollections(() => {
    for (let i = 0; i < calls; i++) {
      // A little garbage between calls, as a load makes between pieces.
      void Array.from({ length: 100 }, (_, j) => ({ j }));
      guard();
    }
  });
  assert.ok(live.length === 32);
  assert.ok(n >= 1, 'the guard collected at least once');
  assert.ok(n <= 5, `${n} full collections in ${calls} calls`);
});

test('a live set far above the ceiling is collected in proportion to it, not every half ceiling of garbage', async () => {
  // The import's resolving at a full year holds hundreds of MB: a full collection every 32 MB
  // of garbage (half its 64 MB ceiling) took the process to 190% CPU in collections.
  const guard = heapGuard({ ceilingMb: 4 });
  const live = Array.from({ length: 64 }, (_, i) => new Array(128 * 1024).fill(i));
  const n = await majorCollections(() => {
    for (let i = 0; i < 256; i++) {
      // About 1 MB of garbage between calls: 256 MB in all, 128 half-ceilings.
      void Array.from({ length: 128 }, () => new Array(1024).fill(i));
      guard();
    }
  });
  assert.ok(live.length === 64);
  assert.ok(n >= 1, 'the guard collected at least once');
  assert.ok(n <= 30, `${n} full collections for 256 MB of garbage beside a 64 MB live set`);
});

test('a smaller share collects more often beside the same live set (the import lets a quarter of its live heap pile up, a load a half)', async () => {
  const live = Array.from({ length: 64 }, (_, i) => new Array(128 * 1024).fill(i));
  const run = (share: number) => {
    const guard = heapGuard({ ceilingMb: 4, share });
    return majorCollections(() => {
      // Garbage that lives a while (the rows of a batch in flight): it survives the young
      // generation, so only a full collection frees it. 512 MB of it in 1 MB pieces, 16 alive at a time.
      const recent: number[][][] = [];
      for (let i = 0; i < 512; i++) {
        recent.push(Array.from({ length: 128 }, () => new Array(1024).fill(i)));
        if (recent.length > 16) recent.shift();
        guard();
      }
    });
  };
  const half = await run(0.5);
  const quarter = await run(0.25);
  assert.ok(live.length === 64);
  assert.ok(quarter > half, `${quarter} full collections with a quarter, ${half} with a half`);
  console.log(`  ${quarter} full collections with a quarter of the live heap, ${half} with a half`);
});

test.run();
