// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The runner's own parts, without running a suite: the header markers of a file, uvu's summary
 * and the batch's per-file lines read back, the timing report, and the order by the last run.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planFile } from './plan.ts';
import { judge, parseParts } from './suite.ts';
import { timingReport, type RunTimings } from './timings.ts';

/** A directory holding `files` (name → text), removed after `fn`. */
async function withFiles(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'runner-test-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('markers: pure, a lock, shared data sets; an unknown kind and a pure file with a lock are refused', async () => {
  await withFiles(
    {
      'a.test.ts': '// @test-kind pure: why\nimport x from "y";\n',
      'b.test.ts': '/** x */\n// @test-lock redis-cluster: why\nconst ds = await useDataset("standard");\n',
      'c.test.ts': 'import { test } from "uvu";\n',
      'd.test.ts': '// @test-kind fast\n',
      'e.test.ts': '// @test-kind pure\n// @test-lock es-nodes\n',
      'f.test.ts': `${'\n'.repeat(70)}// @test-kind pure\n`,
      'g.test.ts': "const text = '// @test-lock es-nodes';\n",
    },
    async (dir) => {
      assert.equal(await planFile(dir, 'a.test.ts'), { file: 'a.test.ts', pure: true, lock: null, datasets: false });
      assert.equal(await planFile(dir, 'b.test.ts'), { file: 'b.test.ts', pure: false, lock: 'redis-cluster', datasets: true });
      assert.equal(await planFile(dir, 'c.test.ts'), { file: 'c.test.ts', pure: false, lock: null, datasets: false });
      await planFile(dir, 'd.test.ts').then(() => assert.unreachable('an unknown kind'), (e: Error) => assert.match(e.message, /unknown @test-kind fast/));
      await planFile(dir, 'e.test.ts').then(() => assert.unreachable('pure with a lock'), (e: Error) => assert.match(e.message, /takes no lock/));
      assert.is((await planFile(dir, 'f.test.ts')).pure, false, 'a marker past the header is not one');
      assert.is((await planFile(dir, 'g.test.ts')).lock, null, 'nor is one inside a string');
    },
  );
});

test('a batch: per-file times read back; a failure in any file fails the batch', () => {
  const out = 'test/a.test.ts\n• •   (2 / 2)\n##part 120 test/a.test.ts\n\ntest/b.test.ts\n✘ •   (1 / 2)\n##part 35 test/b.test.ts\n\n  Total:     4\n  Passed:    3\n  Skipped:   0\n  Duration:  160.00ms\n';
  assert.equal(parseParts(out), [{ file: 'test/a.test.ts', ms: 120 }, { file: 'test/b.test.ts', ms: 35 }]);
  const r = judge('2 pure files', out, { code: 1, signal: null, killedFor: null });
  assert.equal([r.passed, r.failed], [3, 1]);
});

test('the report: lanes, the slowest files with a batch shown as its files, the slowest loads', () => {
  const t: RunTimings = {
    started: '2026-11-27T00:00:00.000Z',
    ms: 100_000,
    lanes: [
      { lane: 'node20', node: '/n20', version: 'v20.20.2', namespace: 'ns-n20', ms: 99_000, passed: 3, failed: 0 },
      { lane: 'node24', node: '/n24', version: 'v24.1.0', namespace: 'ns-n24', ms: 100_000, passed: 3, failed: 0 },
    ],
    files: [
      { lane: 'node20', file: '2 pure files (one process)', ms: 9_000, passed: 2, failed: 0, parts: [{ file: 'p1', ms: 8_000 }, { file: 'p2', ms: 500 }] },
      { lane: 'node20', file: 'slow', ms: 60_000, passed: 1, failed: 0 },
      { lane: 'node24', file: 'slow', ms: 70_000, passed: 1, failed: 0 },
    ],
    loads: [
      { lane: 'node20', file: 'slow', what: 'generated 10/0/1/1 seed 1', how: 'loaded', ms: 2_000 },
      { lane: 'node24', file: 'slow', what: 'dataset standard', how: 'reused', ms: 10 },
    ],
  };
  const lines = timingReport(t, 3);
  assert.match(lines[0], /100\.0 s in all; node20 \(v20\.20\.2\) 99\.0 s, node24 \(v24\.1\.0\) 100\.0 s/);
  const files = lines.slice(2, 5);
  assert.match(files[0], /70\.0 s\s+node24\s+slow/);
  assert.match(files[1], /60\.0 s\s+node20\s+slow/);
  assert.match(files[2], /8\.0 s\s+node20\s+p1 \(in the pure batch\)/);
  assert.match(lines[5], /the 2 slowest of 2 data loads \(2\.0 s in all\)/);
  assert.match(lines[6], /2\.0 s\s+node20\s+loaded generated/);
});

test.run();
