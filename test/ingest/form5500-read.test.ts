// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Reading the DOL datasets: zips (stored by our writer, read back; ZIP64 archives written by
 * Info-ZIP and by hand to the letter of APPNOTE 4.5.3), header-driven columns of an
 * older year, UTF-8 then Windows-1252 decoding per field, damaged rows reported with file and
 * line, files that are not datasets skipped; and the DOL-layout generator writing each year's
 * exact column order.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { datasetOf, layoutOf } from '../../ingest/form5500/datasets.ts';
import { CsvParser, CsvSyntaxError, decodeField, type CsvRecord } from '../../ingest/csv-parse.ts';
import { checkColumns, findDatasetFiles, MissingColumnsError, readDataset, type DamagedRow, type FactRow } from '../../ingest/form5500/read.ts';
import { listZip, openEntry, writeZip } from '../../ingest/form5500/zip.ts';
import { crc32 } from 'node:zlib';
import { generateForm5500 } from '../../ingest/form5500/generate/index.ts';
import { importForm5500 } from '../../ingest/form5500/import.ts';
import { EXIT, LoadAborted } from '../../ingest/load.ts';
import { loadConfig } from '../../core/config.ts';

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'f5500-read-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rowsOf(path: string): Promise<{ rows: FactRow[]; damaged: DamagedRow[]; skipped: string[] }> {
  const found = await findDatasetFiles([path]);
  const rows: FactRow[] = [];
  const damaged: DamagedRow[] = [];
  for (const f of found.files) for await (const batch of readDataset(f, (d) => damaged.push(d))) rows.push(...batch);
  return { rows, damaged, skipped: found.skipped };
}

test('dataset names are recognised in any case, others are not', () => {
  assert.equal(datasetOf('F_SCH_A_PART1_2023_Latest.csv'), { dataset: 'F_SCH_A_PART1', year: 2023 });
  assert.equal(datasetOf('dir/f_5500_sf_2014_latest.csv'), { dataset: 'F_5500_SF', year: 2014 });
  assert.equal(datasetOf('F_SCH_A_2023_Latest.CSV'), { dataset: 'F_SCH_A', year: 2023 });
  assert.is(datasetOf('F_5500_2023_Latest_layout.txt'), null);
  assert.is(datasetOf('F_SCH_C_PART1_ITEM1_2023_Latest.csv'), null);
});

test('a field is UTF-8 when valid, else Windows-1252; ASCII is untouched', () => {
  assert.is(decodeField(Buffer.from('CAFÉ PEÑA', 'utf8').toString('latin1')), 'CAFÉ PEÑA');
  assert.is(decodeField(Buffer.from([0x43, 0x41, 0x46, 0xc9]).toString('latin1')), 'CAFÉ');
  assert.is(decodeField(Buffer.from([0x93, 0x41, 0x94]).toString('latin1')), '\u201cA\u201d');
  assert.is(decodeField('PLAIN'), 'PLAIN');
});

test('the CSV parser on bytes reports damaged records with their line and goes on', () => {
  const bad: { line: number; issue: string }[] = [];
  const r = new CsvParser({ bytes: true, onDamaged: (d) => bad.push(d) });
  const out: CsvRecord[] = [];
  out.push(...r.push('\u00ef\u00bb\u00bfA,B\r\n1,"x""y"\r\n2,"bad"z\r\n\r\n3,"multi\nline"\n4,'));
  out.push(...r.push('end\n5,"never closed\n'));
  out.push(...r.end());
  assert.equal(out.map((o) => [o.line, o.values]), [[1, ['A', 'B']], [2, ['1', 'x"y']], [5, ['3', 'multi\nline']], [7, ['4', 'end']]]);
  assert.equal(bad.map((b) => b.line), [3, 8]);
  assert.match(bad[1].issue, /unterminated/);
  assert.throws(() => new CsvParser().push('1,"bad"z\n'), (e: unknown) => e instanceof CsvSyntaxError && e.line === 1, 'without onDamaged a damaged record still stops the parse');
});

test('the CSV parser on bytes decodes each field as UTF-8, else Windows-1252, whatever the chunking', () => {
  const bytes = Buffer.concat([Buffer.from('N,"Q"\r\nCAF\u00c9 PE\u00d1A,"', 'utf8'), Buffer.from([0x93, 0x41, 0x94, 0x2c, 0x42]), Buffer.from('"\r\n', 'latin1')]);
  const text = bytes.toString('latin1');
  for (let cut = 0; cut <= text.length; cut++) {
    const p = new CsvParser({ bytes: true });
    const out = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()];
    assert.equal(out.map((o) => o.values), [['N', 'Q'], ['CAF\u00c9 PE\u00d1A', '\u201cA\u201d,B']], `cut at ${cut}`);
  }
});

test('a quoted field open for more than maxRecordLines lines is a stray quote: reported once, and the lines it swallowed are read again', () => {
  const bad: { line: number; issue: string }[] = [];
  const p = new CsvParser({ bytes: true, onDamaged: (d) => bad.push(d), maxRecordLines: 3 });
  const out = [...p.push('A,B\n1,"stray\n2,x\n3,y\n4,z\n'), ...p.end()];
  assert.equal(bad.map((b) => b.line), [2]);
  assert.equal(out.map((o) => [o.line, o.values]), [[1, ['A', 'B']], [3, ['2', 'x']], [4, ['3', 'y']], [5, ['4', 'z']]]);
});

/** Every record and damaged line of `text` read in chunks cut every `step` characters. */
function parseInChunks(text: string, step: number, options: { header?: boolean } = {}): { out: [number, string[]][]; bad: { line: number; issue: string }[] } {
  const bad: { line: number; issue: string }[] = [];
  const p = new CsvParser({ bytes: true, onDamaged: (d) => bad.push(d), ...options });
  const out: CsvRecord[] = [];
  for (let i = 0; i < text.length; i += step) out.push(...p.push(text.slice(i, i + step)));
  out.push(...p.end());
  return { out: out.map((o) => [o.line, o.values]), bad };
}

test('a stray quote swallowing the next 49+ rows is one damaged row, and every good row after it is read, whatever the chunking', () => {
  const good = (i: number) => `${i},NAME ${i},${i * 10}`;
  const ids = Array.from({ length: 60 }, (_, k) => k + 3);
  const text = `ID,NAME,AMT\r\n${good(1)}\r\n2,"BROKEN NAME,20\r\n${ids.map(good).join('\r\n')}\r\n`;
  const want = [[1, ['ID', 'NAME', 'AMT']], [2, ['1', 'NAME 1', '10']], ...ids.map((i) => [i + 1, [String(i), `NAME ${i}`, String(i * 10)]])];
  for (const step of [text.length, 1, 7, 64, 333]) {
    const { out, bad } = parseInChunks(text, step);
    assert.equal(out, want, `chunks of ${step}`);
    assert.equal(bad.map((b) => b.line), [3], `chunks of ${step}`);
    assert.match(bad[0].issue, /unterminated quoted field/);
  }
});

test('a stray quote closed by a later row\'s quote (an error, or a record of the wrong width) is one damaged row; the rows it spanned are read', () => {
  const good = (i: number) => `${i},"NAME ${i}, INC",${i * 10}`;
  const ids = [3, 4, 5, 6];
  const closedByError = `ID,NAME,AMT\n${good(1)}\n2,"BROKEN,20\n${ids.map(good).join('\n')}\n`;
  const want = [[1, ['ID', 'NAME', 'AMT']], [2, ['1', 'NAME 1, INC', '10']], ...ids.map((i) => [i + 1, [String(i), `NAME ${i}, INC`, String(i * 10)]])];
  for (const step of [closedByError.length, 1, 5]) {
    const { out, bad } = parseInChunks(closedByError, step);
    assert.equal(out, want, `closed by an error, chunks of ${step}`);
    assert.equal(bad.map((b) => b.line), [3]);
  }
  // The stray quote closes cleanly on line 5 (a 12" pipe), leaving one record of 2 fields over lines 3-5.
  const closedWide = 'ID,NAME,AMT\n1,A,10\n"2,BROKEN,20\n3,C,30\n4,PIPE 12",40\n5,E,50\n';
  const { out, bad } = parseInChunks(closedWide, closedWide.length, { header: true });
  assert.equal(out, [[1, ['ID', 'NAME', 'AMT']], [2, ['1', 'A', '10']], [4, ['3', 'C', '30']], [5, ['4', 'PIPE 12"', '40']], [6, ['5', 'E', '50']]]);
  assert.equal(bad.map((b) => b.line), [3]);
  assert.match(bad[0].issue, /2 fields instead of 3/);
  const plain = parseInChunks(closedWide, closedWide.length);
  assert.equal(plain.out.map((o) => o[0]), [1, 2, 3, 6], 'without a header width the record of lines 3-5 is a record');
});

test('a stray quote on the last row, or a few rows before the end, is one damaged row; the rows after it are read', () => {
  for (const end of ['', '\n', '\r\n']) {
    const last = parseInChunks(`A,B\n1,x\n2,"never closed${end}`, 3);
    assert.equal(last.out, [[1, ['A', 'B']], [2, ['1', 'x']]], JSON.stringify(end));
    assert.equal(last.bad.map((b) => b.line), [3]);
    assert.match(last.bad[0].issue, /unterminated/);
  }
  const tail = Array.from({ length: 10 }, (_, k) => `${k + 3},y`);
  for (const end of ['', '\n']) {
    const near = parseInChunks(`A,B\n1,x\n2,"never closed\n${tail.join('\n')}${end}`, 4);
    assert.equal(near.out, [[1, ['A', 'B']], [2, ['1', 'x']], ...tail.map((t, k) => [k + 4, t.split(',')])], JSON.stringify(end));
    assert.equal(near.bad.map((b) => b.line), [3]);
  }
  const twice = parseInChunks('A,B\n1,"open\n2,x\n3,"again\n4,y\n', 100);
  assert.equal(twice.out, [[1, ['A', 'B']], [3, ['2', 'x']], [5, ['4', 'y']]], 'a second stray quote among the rows read again');
  assert.equal(twice.bad.map((b) => b.line), [2, 4]);
});

test('zip entries are listed and streamed back (deflate, data descriptors)', async () => {
  const path = join(dir, 'a.zip');
  const big = 'x,y\r\n'.repeat(100_000);
  await writeZip(path, [{ name: 'F_5500_2023_Latest_layout.txt', chunks: ['layout'] }, { name: 'sub/f_5500_2023_latest.csv', chunks: [big.slice(0, 7), big.slice(7)] }]);
  const entries = await listZip(path);
  assert.equal(entries.map((e) => [e.name, e.size]), [['F_5500_2023_Latest_layout.txt', 6], ['sub/f_5500_2023_latest.csv', big.length]]);
  let text = '';
  for await (const c of await openEntry(path, entries[1])) text += (c as Buffer).toString('latin1');
  assert.is(text, big);
});

test('a file found twice is read once: a copy (a zip and its extracted CSV) is skipped and reported; two different files of one name are refused; other names are read', async () => {
  const folder = join(dir, 'twice');
  await mkdir(folder, { recursive: true });
  const csv = 'ACK_ID,FORM_ID\r\n1,1\r\n';
  await writeZip(join(folder, 'F_SCH_A_2023_Latest.zip'), [{ name: 'F_SCH_A_2023_latest.csv', chunks: [csv] }]);
  await writeFile(join(folder, 'F_SCH_A_2023_latest.csv'), csv);
  const found = await findDatasetFiles([folder]);
  assert.is(found.files.length, 1, 'read once');
  assert.is(found.duplicates.length, 1);
  const pair = [found.duplicates[0].label, found.duplicates[0].kept].map((l) => l.split('/').pop()).sort();
  assert.equal(pair, ['F_SCH_A_2023_Latest.zip!F_SCH_A_2023_latest.csv', 'F_SCH_A_2023_latest.csv'], 'the copy is named with the file kept');
  assert.is(found.files[0].label, found.duplicates[0].kept);
  await writeFile(join(folder, 'F_SCH_A_2023_latest.csv'), `${csv}2,1\r\n`);
  const err = await findDatasetFiles([folder]).then(() => null, (e: Error) => e);
  assert.ok(err, 'two different files of one dataset and year are refused');
  assert.match(err.message, /two different files named f_sch_a_2023_latest\.csv: .+ \(\d+ bytes\) and .+ \(\d+ bytes\); import one of them/);
  assert.ok(err.message.includes('F_SCH_A_2023_Latest.zip!F_SCH_A_2023_latest.csv') && err.message.includes(`${folder}/F_SCH_A_2023_latest.csv`), err.message);
  await rm(join(folder, 'F_SCH_A_2023_latest.csv'));
  await writeFile(join(folder, 'F_SCH_A_2023_extra.csv'), `${csv}2,1\r\n`);
  const both = await findDatasetFiles([folder]);
  assert.equal([both.files.length, both.duplicates.length], [2, 0], 'another file of the same dataset and year is read');
});

/** Rewrites the central directory record of the archive's only entry: `edit(buffer, offset of the record)`. */
async function editCentral(path: string, edit: (b: Buffer, at: number) => void): Promise<void> {
  const b = await readFile(path);
  const at = b.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  assert.ok(at > 0, 'a central directory record');
  edit(b, at);
  await writeFile(path, b);
}

test('a damaged entry (its bytes do not match the CRC-32 the archive gives) ends its stream with an error naming the file and entry', async () => {
  const path = join(dir, 'crc.zip');
  await writeZip(path, [{ name: 'F_SCH_A_2023_latest.csv', chunks: ['ACK_ID,FORM_ID\r\n1,1\r\n'] }]);
  await editCentral(path, (b, at) => b.writeUInt32LE((b.readUInt32LE(at + 16) ^ 0x00ff00ff) >>> 0, at + 16));
  const [entry] = await listZip(path);
  let text = '';
  const err = await (async () => {
    for await (const c of await openEntry(path, entry)) text += (c as Buffer).toString('latin1');
  })().then(() => null, (e: Error) => e);
  assert.ok(err, 'the read fails');
  assert.match(err.message, /crc\.zip: F_SCH_A_2023_latest\.csv is damaged/);
  assert.match(err.message, /CRC-32/);
});

test('an entry compressed with Deflate64 (method 9) is refused before reading, naming the file, the entry and the method', async () => {
  const path = join(dir, 'deflate64.zip');
  await writeZip(path, [{ name: 'F_5500_2023_latest.csv', chunks: ['ACK_ID\r\n1\r\n'] }]);
  await editCentral(path, (b, at) => b.writeUInt16LE(9, at + 10));
  const [entry] = await listZip(path);
  const err = await openEntry(path, entry).then(() => null, (e: Error) => e);
  assert.ok(err, 'refused');
  assert.match(err.message, /deflate64\.zip: F_5500_2023_latest\.csv is compressed with Deflate64 \(method 9\)/);
});

/**
 * A ZIP64 archive of stored entries as APPNOTE 4.5.3 lays it out, every size, offset and count
 * in its 64-bit field (the 32-bit ones hold 0xFFFFFFFF / 0xFFFF): local headers with a ZIP64
 * extra field, central headers with one for size, compressed size and offset, the ZIP64 end
 * record, its locator and the end record. `lead` bytes come first, so no offset is 0.
 */
function zip64Of(entries: { name: string; data: Buffer }[], lead = 17): Buffer {
  const parts: Buffer[] = [Buffer.alloc(lead, 0x20)];
  let pos = lead;
  const central: Buffer[] = [];
  const u64 = (b: Buffer, v: number, at: number) => b.writeBigUInt64LE(BigInt(v), at);
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data) >>> 0;
    const local = Buffer.alloc(30 + name.length + 20);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(45, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(0xffffffff, 18);
    local.writeUInt32LE(0xffffffff, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(20, 28);
    name.copy(local, 30);
    local.writeUInt16LE(1, 30 + name.length);
    local.writeUInt16LE(16, 32 + name.length);
    u64(local, e.data.length, 34 + name.length);
    u64(local, e.data.length, 42 + name.length);
    const c = Buffer.alloc(46 + name.length + 28);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(45, 4);
    c.writeUInt16LE(45, 6);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(0xffffffff, 20);
    c.writeUInt32LE(0xffffffff, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt16LE(28, 30);
    c.writeUInt32LE(0xffffffff, 42);
    name.copy(c, 46);
    c.writeUInt16LE(1, 46 + name.length);
    c.writeUInt16LE(24, 48 + name.length);
    u64(c, e.data.length, 50 + name.length);
    u64(c, e.data.length, 58 + name.length);
    u64(c, pos, 66 + name.length);
    central.push(c);
    parts.push(local, e.data);
    pos += local.length + e.data.length;
  }
  const dir = Buffer.concat(central);
  const end64 = Buffer.alloc(56);
  end64.writeUInt32LE(0x06064b50, 0);
  u64(end64, 44, 4);
  end64.writeUInt16LE(45, 12);
  end64.writeUInt16LE(45, 14);
  u64(end64, entries.length, 24);
  u64(end64, entries.length, 32);
  u64(end64, dir.length, 40);
  u64(end64, pos, 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  u64(locator, pos + dir.length, 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...parts, dir, end64, locator, end]);
}

test('a ZIP64 archive (64-bit sizes, offsets and counts only) reads through the import path as its CSVs do', async () => {
  const cols = layoutOf('F_SCH_A_PART1', 2023);
  const line = (i: number) => cols.map((c) => (c === 'ACK_ID' ? `2024050100000${i}P04` : c === 'FORM_ID' ? '1' : c === 'INS_BROKER_NAME' ? `BROKER ${i}, INC` : c === 'INS_BROKER_COMM_PD_AMT' ? String(100 * i) : '')).map((v) => (v.includes(',') ? `"${v}"` : v)).join(',');
  const part1 = Buffer.from(`${cols.join(',')}\r\n${[1, 2, 3].map(line).join('\r\n')}\r\n`, 'latin1');
  const schA = Buffer.from(`${layoutOf('F_SCH_A', 2023).join(',')}\r\n`, 'latin1');
  await mkdir(join(dir, 'z64'));
  await writeFile(join(dir, 'z64', 'F_SCH_A_2023_Latest.zip'), zip64Of([{ name: 'f_sch_a_2023_latest.csv', data: schA }, { name: 'F_SCH_A_PART1_2023_Latest.csv', data: part1 }]));
  await mkdir(join(dir, 'csv64'));
  await writeFile(join(dir, 'csv64', 'F_SCH_A_PART1_2023_Latest.csv'), part1);
  const entries = await listZip(join(dir, 'z64', 'F_SCH_A_2023_Latest.zip'));
  assert.equal(entries.map((e) => [e.name, e.size, e.compressedSize, e.offset]), [['f_sch_a_2023_latest.csv', schA.length, schA.length, 17], ['F_SCH_A_PART1_2023_Latest.csv', part1.length, part1.length, 17 + 30 + 23 + 20 + schA.length]]);
  const fromZip = await rowsOf(join(dir, 'z64'));
  const fromCsv = await rowsOf(join(dir, 'csv64'));
  assert.is(fromZip.damaged.length, 0);
  assert.equal(fromZip.rows.map((r) => [r.facts.ack, r.facts.name, r.facts.commissions]), [['20240501000001P04', 'BROKER 1, INC', '100'], ['20240501000002P04', 'BROKER 2, INC', '200'], ['20240501000003P04', 'BROKER 3, INC', '300']]);
  assert.equal(fromZip.rows, fromCsv.rows);
});

test('a ZIP64 archive written by Info-ZIP (zip -fz: a stored and a deflated entry) reads through the import path', async () => {
  // test/fixtures/form5500/zip64-infozip.zip: `zip -X -fz -0` F_SCH_A_2023_Latest.csv (75 rows), then
  // `zip -X -fz -9` F_SCH_A_PART1_2023_Latest.csv (74 rows), both from `bintel generate --layout form5500 --scale 0.0002`.
  const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'form5500', 'zip64-infozip.zip');
  const found = await findDatasetFiles([fixture]);
  assert.equal(found.files.map((f) => [f.dataset, f.year]), [['F_SCH_A', 2023], ['F_SCH_A_PART1', 2023]]);
  for (const [file, rows, commissions] of [[found.files[0], 75, 9337803], [found.files[1], 74, 8719246]] as const) {
    const got: FactRow[] = [];
    const damaged: DamagedRow[] = [];
    for await (const batch of readDataset(file, (d) => damaged.push(d))) got.push(...batch);
    assert.is(damaged.length, 0, file.label);
    assert.is(got.length, rows, file.label);
    assert.is(got.reduce((n, r) => n + Number(r.facts.commissions || 0), 0), commissions, file.label);
    assert.is(got[0].facts.ack, '20240501000000P040000000000000', file.label);
  }
});

test('columns are read by header: an older year lacks a column (blank), damaged rows are named with file and line', async () => {
  const cols2009 = layoutOf('F_5500_SF', 2009);
  assert.not.ok(cols2009.includes('SF_TOT_ACT_PARTCP_EOY_CNT'), 'the 2009 layout has no active participant count');
  const row = (ein: string, name: string) => cols2009.map((c) => (c === 'SF_SPONS_EIN' ? ein : c === 'SF_SPONSOR_NAME' ? name : c === 'ACK_ID' ? `A${ein}` : '')).join(',');
  const bytes = Buffer.concat([
    Buffer.from(`${cols2009.join(',')}\r\n${row('123456789', 'ACME')}\r\n`, 'latin1'),
    Buffer.from(`${row('223456789', 'CAF\u00c9')}\r\n`, 'latin1'), // Windows-1252 É
    Buffer.from(`${row('323456789', 'X')},extra\r\n`, 'latin1'),
  ]);
  await mkdir(join(dir, 'old'));
  const path = join(dir, 'old', 'f_5500_sf_2009_latest.csv');
  await writeFile(path, bytes);
  await writeFile(join(dir, 'old', 'readme.txt'), 'not a dataset');
  const { rows, damaged, skipped } = await rowsOf(join(dir, 'old'));
  assert.equal(rows.map((r) => [r.line, r.facts.ein, r.facts.sponsorName, r.facts.activeEoy]), [[2, '123456789', 'ACME', ''], [3, '223456789', 'CAFÉ', '']]);
  assert.equal(damaged.map((d) => [d.file, d.line]), [[path, 4]]);
  assert.match(damaged[0].issue, /wrong_column_count/);
  assert.ok(skipped.some((s) => s.endsWith('readme.txt')));
});

test('through the reader: a broken quote in a broker name is one damaged row with file and line, and the 60 good rows after it are read; also on the last row', async () => {
  const cols = layoutOf('F_SCH_A_PART1', 2023);
  const row = (i: number, name: string) => cols.map((c) => (c === 'ACK_ID' ? `20240501000${String(i).padStart(3, '0')}P040` : c === 'FORM_ID' ? '1' : c === 'INS_BROKER_NAME' ? name : c === 'INS_BROKER_COMM_PD_AMT' ? String(i) : '')).join(',');
  const ids = Array.from({ length: 60 }, (_, k) => k + 3);
  const text = [cols.join(','), row(1, 'ALPHA AGENCY'), row(2, '"BROKEN AGENCY'), ...ids.map((i) => row(i, `BROKER ${i} LLC`)), row(99, '"LAST BROKEN')].join('\r\n');
  await mkdir(join(dir, 'stray'));
  const path = join(dir, 'stray', 'F_SCH_A_PART1_2023_Latest.csv');
  await writeFile(path, `${text}\r\n`);
  const { rows, damaged } = await rowsOf(path);
  assert.equal(rows.map((r) => [r.line, r.facts.ack, r.facts.name]), [[2, '20240501000001P040', 'ALPHA AGENCY'], ...ids.map((i) => [i + 1, `20240501000${String(i).padStart(3, '0')}P040`, `BROKER ${i} LLC`])]);
  assert.equal(damaged.map((d) => [d.file, d.line]), [[path, 3], [path, 64]]);
  assert.match(damaged[0].issue, /unterminated quoted field/);
});

/** The error reading a file raises, or null. */
async function readError(path: string): Promise<Error | null> {
  return rowsOf(path).then(() => null, (e: Error) => e);
}

test('a header lacking columns the importer needs (which the year\'s layout has) is refused naming the file and the columns; checkColumns tells before reading', async () => {
  await mkdir(join(dir, 'missing'));
  const part1 = layoutOf('F_SCH_A_PART1', 2023).filter((c) => c !== 'INS_BROKER_NAME' && c !== 'INS_BROKER_COMM_PD_AMT');
  const path = join(dir, 'missing', 'F_SCH_A_PART1_2023_Latest.csv');
  await writeFile(path, `${part1.join(',')}\r\n${part1.map((c) => (c === 'ACK_ID' ? 'A1' : '')).join(',')}\r\n`);
  const err = await readError(path);
  assert.ok(err instanceof MissingColumnsError, String(err));
  assert.ok(err.message.includes(path), err.message);
  assert.match(err.message, /lacks INS_BROKER_NAME, INS_BROKER_COMM_PD_AMT/);
  assert.equal(err.missing, ['INS_BROKER_NAME', 'INS_BROKER_COMM_PD_AMT']);
  const [file] = (await findDatasetFiles([path])).files;
  assert.equal(await checkColumns(file), ['INS_BROKER_NAME', 'INS_BROKER_COMM_PD_AMT'], 'from the header alone');

  const sf = layoutOf('F_5500_SF', 2023).filter((c) => c !== 'SF_PLAN_NUM' && c !== 'SF_SPONS_EIN');
  const sfPath = join(dir, 'missing', 'f_5500_sf_2023_latest.csv');
  await writeFile(sfPath, `${sf.join(',')}\r\n`);
  const sfErr = await readError(sfPath);
  assert.ok(sfErr instanceof MissingColumnsError);
  assert.equal(sfErr.missing, ['SF_PLAN_NUM', 'SF_SPONS_EIN']);
});

test('the import refuses files lacking needed columns before reading any row, naming every such file (nothing reaches Elasticsearch)', async () => {
  const folder = join(dir, 'refused');
  await mkdir(folder);
  const schA = layoutOf('F_SCH_A', 2023);
  await writeFile(join(folder, 'F_SCH_A_2023_Latest.csv'), `${schA.join(',')}\r\n`);
  await writeFile(join(folder, 'F_5500_2023_Latest.csv'), `${layoutOf('F_5500', 2023).filter((c) => c !== 'SPONS_DFE_EIN').join(',')}\r\n`);
  await writeFile(join(folder, 'F_SCH_A_PART1_2023_Latest.csv'), `${layoutOf('F_SCH_A_PART1', 2023).filter((c) => c !== 'ACK_ID').join(',')}\r\n`);
  const err = await importForm5500(loadConfig({ ES_URL: 'http://127.0.0.1:1' }), [folder], { log: null, errors: join(folder, 'report') }).then(() => null, (e: Error) => e);
  assert.ok(err instanceof LoadAborted, String(err));
  assert.is(err.exitCode, EXIT.inputRefused);
  assert.match(err.message, /F_5500_2023_Latest\.csv: the header lacks SPONS_DFE_EIN,/);
  assert.match(err.message, /F_SCH_A_PART1_2023_Latest\.csv: the header lacks ACK_ID,/);
  assert.not.match(err.message, /F_SCH_A_2023_Latest\.csv/);
});

test('a header is matched in any case, with spaces, quotes and a BOM around names; a column the year lacks is blank; a year with no layout needs only the identifying columns', async () => {
  await mkdir(join(dir, 'loose'));
  const cols = layoutOf('F_SCH_A', 2023);
  const header = cols.map((c, i) => (i === 0 ? c : i % 3 === 0 ? ` ${c.toLowerCase()} ` : i % 3 === 1 ? `"${c}"` : c)).join(',');
  const path = join(dir, 'loose', 'F_SCH_A_2023_Latest.csv');
  await writeFile(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${header}\r\n${cols.map((c) => (c === 'ACK_ID' ? 'A1' : c === 'INS_CARRIER_NAME' ? 'CARRIER' : '')).join(',')}\r\n`)]));
  const { rows, damaged } = await rowsOf(path);
  assert.is(damaged.length, 0);
  assert.equal(rows.map((r) => [r.facts.ack, r.facts.carrierName]), [['A1', 'CARRIER']]);

  const future = join(dir, 'loose', 'F_SCH_A_PART1_2031_Latest.csv');
  await writeFile(future, 'ACK_ID,FORM_ID,INS_BROKER_NAME\r\nA2,1,BROKER\r\n');
  const later = await rowsOf(future);
  assert.equal(later.rows.map((r) => [r.facts.ack, r.facts.name, r.facts.commissions]), [['A2', 'BROKER', '']]);
  await writeFile(future, 'ACK_ID,FORM_ID,INS_BROKER_CITY\r\nA2,1,X\r\n');
  const err = await readError(future);
  assert.ok(err instanceof MissingColumnsError);
  assert.equal(err.missing, ['INS_BROKER_NAME']);
});

test('generate --layout form5500 writes each year in its exact layout, zipped as the DOL does, and reads back', async () => {
  const out = join(dir, 'gen');
  const written = await generateForm5500({ out, years: [2013, 2023], scale: 0.0005, seed: 3, zip: true });
  assert.is(written.length, 8);
  for (const w of written) {
    const [entry] = (await listZip(w.path)).filter((e) => e.name.endsWith('.csv'));
    let head = '';
    for await (const c of await openEntry(w.path, entry)) {
      head += (c as Buffer).toString('latin1');
      if (head.includes('\r\n')) break;
    }
    assert.equal(head.split('\r\n')[0].split(','), [...layoutOf(w.dataset, w.year)], `${w.dataset} ${w.year}`);
  }
  const { rows, damaged, skipped } = await rowsOf(out);
  assert.is(damaged.length, 0);
  assert.is(skipped.length, 8, 'the layout files are named and skipped');
  assert.is(rows.length, written.reduce((n, w) => n + w.rows, 0));
  assert.ok(rows.some((r) => r.facts.amended === '1'), 'amended filings');
  const again = join(dir, 'gen2');
  await generateForm5500({ out: again, years: [2023], scale: 0.0005, seed: 3 });
  const a = await readFile(join(again, 'f_sch_a_part1_2023_latest.csv'));
  await generateForm5500({ out: again, years: [2023], scale: 0.0005, seed: 3 });
  assert.ok(a.equals(await readFile(join(again, 'f_sch_a_part1_2023_latest.csv'))), 'the same seed writes the same bytes');
});

test.run();
