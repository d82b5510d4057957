/**
 * Keeps a long load's memory flat. V8 sizes its heap for throughput and lets garbage pile
 * up to several hundred MB between full collections on a large machine; a load's live set
 * is small (the batches in flight), so a full collection whenever the heap passes a
 * ceiling bounds RSS at a small CPU cost (measured in docs/performance.md, Ingest).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null = null;

function collector(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

/** A full collection now (after a large structure was let go, so that its memory goes at once). */
export function collectGarbage(): void {
  collector()();
}

/**
 * Returns a function to call between batches: collects when the heap passes `ceilingMb`, or,
 * once more than that survives a collection, half of `ceilingMb` or `share` of what survived
 * (whichever is more; half by default) above what survived.
 */
export function heapGuard({ ceilingMb = 64, debug = false, share = 0.5 }: { ceilingMb?: number; debug?: boolean; share?: number } = {}): () => void {
  const ceiling = ceilingMb * 1024 * 1024;
  const gc = collector();
  let threshold = ceiling;
  return () => {
    // The heap's own figure (no /proc read: this runs every piece of 100 rows).
    if (getHeapStatistics().used_heap_size > threshold) {
      gc();
      // The next collection waits for half a ceiling of garbage above what survived this one:
      // when the live set itself nears the ceiling (the parent cache of a 1M-row load holds up
      // to 100,000 documents), a fixed threshold meant a full collection every piece.
      // And at least half the live set: with hundreds of MB live (the import resolving a full year)
      // a collection every half ceiling of garbage made collections most of the CPU.
      const after = getHeapStatistics().used_heap_size;
      threshold = Math.max(ceiling, after + Math.max(ceiling / 2, after * share));
      if (debug) {
        const m = process.memoryUsage();
        process.stderr.write(`gc: heapUsed ${Math.round(m.heapUsed / 1e6)} heapTotal ${Math.round(m.heapTotal / 1e6)} external ${Math.round(m.external / 1e6)} rss ${Math.round(m.rss / 1e6)} MB\n`);
      }
    }
  };
}
