// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Real rows of the DOL's Form 5500 datasets (test/fixtures/form5500/real/, each named with its
 * source in SOURCES.md) read through the import's reader: no damaged row, and every fact that
 * has a column with a value in the file comes out non-blank. None have been found yet
 * (SOURCES.md says where they were looked for), so today this checks only that every file there
 * is a dataset file and is named in SOURCES.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { columnsOf, datasetOf } from '../../ingest/form5500/datasets.ts';
import { CsvParser } from '../../ingest/csv-parse.ts';
import { findDatasetFiles, readDataset, type DamagedRow, type FactRow } from '../../ingest/form5500/read.ts';

const REAL = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'form5500', 'real');

test('every file of real rows is a dataset file named in SOURCES.md', async () => {
  const sources = await readFile(join(REAL, 'SOURCES.md'), 'utf8');
  for (const name of (await readdir(REAL)).filter((n) => n !== 'SOURCES.md')) {
    assert.ok(datasetOf(name), `${name} is not named as a DOL dataset file (datasetOf)`);
    assert.ok(sources.includes(name), `${name} is not in SOURCES.md`);
  }
});

test('real rows read with no damaged row, and each fact is non-blank where the file has a value', async () => {
  const found = await findDatasetFiles([REAL]);
  for (const file of found.files) {
    // The file parsed on its own: each line's raw values by column name.
    const raw = new Map<number, Map<string, string>>();
    const parser = new CsvParser({ bytes: true });
    const records = [...parser.push((await readFile(file.label)).toString('latin1')), ...parser.end()];
    const header = records[0].values.map((h) => h.trim().toUpperCase());
    for (const r of records.slice(1)) raw.set(r.line, new Map(header.map((h, i) => [h, (r.values[i] ?? '').trim()])));
    const rows: FactRow[] = [];
    const damaged: DamagedRow[] = [];
    for await (const batch of readDataset(file, (d) => damaged.push(d))) rows.push(...batch);
    assert.equal(damaged, [], file.label);
    assert.is(rows.length, raw.size, `${file.label}: every row read`);
    for (const r of rows) {
      assert.ok(r.facts.ack, `${file.label}:${r.line} ACK_ID`);
      const values = raw.get(r.line)!;
      for (const [fact, col] of Object.entries(columnsOf(file.dataset))) {
        const v = col ? values.get(col) : undefined;
        if (v) assert.is(r.facts[fact], v, `${file.label}:${r.line} ${fact} (${col})`);
      }
    }
  }
});

test.run();
