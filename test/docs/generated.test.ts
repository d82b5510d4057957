// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The sections of the documentation written from the code (`bintel docs`) match it: the CSV
 * reference in docs/data.md and the export columns in docs/api.md (entity definitions), and the
 * consumer's reference in docs/reference.md (field dictionary, prices and the worked example,
 * the rows table, sample responses: entity definitions, pricing, OpenAPI document), each in one
 * file. The worked example's figures are recomputed here from the pricing functions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../cli/program.ts';
import { regenerateSections, replaceSection } from '../../mappings/docs.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { SIGNALS } from '../../mappings/signals.ts';
import { DOC_FILES, DOC_SECTIONS, regenerateDocs } from '../../server/openapi/reference.ts';
import { rowPrice, SIGNAL_SURCHARGE_MILLI } from '../../server/pricing.ts';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

test('every generated section is in exactly one of the docs files, and the README holds none', async () => {
  const found: string[] = [];
  for (const path of DOC_FILES) found.push(...regenerateDocs(await read(path)).sections);
  assert.equal(found.sort(), Object.keys(DOC_SECTIONS).sort());
  assert.equal(regenerateDocs(await read('README.md')).sections, []);
});

test('the generated sections match the code (run `npx bintel docs` after changing mappings/, pricing or the OpenAPI document)', async () => {
  for (const path of DOC_FILES) {
    const text = await read(path);
    const fresh = regenerateDocs(text).text;
    if (fresh !== text) {
      const [a, b] = [text.split('\n'), fresh.split('\n')];
      const i = a.findIndex((line, n) => line !== b[n]);
      assert.unreachable(`${path} has drifted from the code at line ${i + 1} (npx bintel docs):\n  file:     ${a[i]}\n  rendered: ${b[i]}`);
    }
  }
});

/** The rows of the markdown table that follows `heading` in `text`, as cells. */
function tableAfter(text: string, heading: string): string[][] {
  const from = text.indexOf(heading);
  assert.ok(from >= 0, `no ${heading}`);
  const lines = text.slice(from).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows;
}

test('docs/reference.md: the worked pricing example adds up to what the pricing functions charge', async () => {
  const text = await read('docs/reference.md');
  const rows = tableAfter(text, '<!-- reference-price-example:start -->');
  assert.ok(rows.length >= 3, 'the worked example has its pages');
  let withSignal = 0;
  for (const [page, perRow, total] of rows) {
    const m = /^(\d+) rows of ([a-z-]+), (basic|advanced) tier: `GET \/v1\/[a-z-]+\?([^`]*)`$/.exec(page);
    assert.ok(m, page);
    const [, n, resource, tier, query] = m!;
    const def = ENTITIES.find((d) => d.name === resource)!;
    const signals = new URLSearchParams(query).get('signals')?.split(',') ?? [];
    withSignal += signals.length ? 1 : 0;
    const price = rowPrice(def, tier as 'basic' | 'advanced', signals);
    const each = (price.base + price.signals) / 1000;
    assert.match(perRow, new RegExp(`= ${each.toFixed(2).replace('.', '\\.')}$`), `${page}: per row ${perRow}, pricing says ${each}`);
    const expected = Math.round(Number(n) * (price.base + price.signals)) / 1000;
    assert.is(Number(/\*\*([\d,.]+)\*\*/.exec(total)![1].replace(/,/g, '')), expected, `${page}: ${total}`);
  }
  assert.ok(withSignal > 0, 'the example prices a signal');
});

test('docs/reference.md: every signal with its category and surcharge, every resource\'s row prices', async () => {
  const text = await read('docs/reference.md');
  const signals = tableAfter(text, '| signal | category |');
  assert.equal(signals.map((r) => r[0]), SIGNALS.map((s) => `\`${s.name}\``));
  for (const [name, category, surcharge] of signals) {
    const s = SIGNALS.find((x) => `\`${x.name}\`` === name)!;
    assert.is(category, s.category);
    assert.is(Number(surcharge), SIGNAL_SURCHARGE_MILLI[s.category] / 1000);
  }
  const prices = tableAfter(text, '<!-- reference-prices:start -->');
  for (const def of ENTITIES) {
    const row = prices.find((r) => r[0] === def.name);
    assert.ok(row, def.name);
    assert.equal([Number(row![1]), Number(row![2])], [def.price.basic / 1000, def.price.advanced / 1000]);
  }
});

test('docs/reference.md: the field dictionary names every returned field of every resource with its tier', async () => {
  const text = await read('docs/reference.md');
  for (const def of ENTITIES) {
    const rows = tableAfter(text.slice(text.indexOf('<!-- reference-fields:start -->')), `### ${def.name}\n`);
    const listed = new Map(rows.map((r) => [r[0], r[2]]));
    for (const f of def.fields.filter((x) => x.output !== false)) assert.is(listed.get(`\`${f.name}\``), f.tier ?? 'basic', `${def.name}.${f.name}`);
    assert.ok(listed.has('`lead_source`'), `${def.name}: lead_source`);
    for (const m of def.callerMembers ?? []) assert.ok(listed.has(`\`${m}\``), `${def.name}: ${m}`);
  }
});

test('a drifted section is rewritten, and a missing marker is an error', () => {
  const doc = 'intro\n<!-- export-columns:start -->\nstale\n<!-- export-columns:end -->\nend\n';
  const { text, sections } = regenerateSections(doc);
  assert.equal(sections, ['export-columns']);
  assert.not.match(text, 'stale');
  assert.match(text, '| companies |');
  assert.throws(() => replaceSection('no markers', 'csv-reference', 'x'), /no <!-- csv-reference:start -->/);
});

test('`bintel docs FILE` and `--readme FILE` rewrite the sections a file holds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bintel-docs-'));
  const write = process.stdout.write;
  try {
    const a = join(dir, 'a.md');
    const b = join(dir, 'b.md');
    await writeFile(a, 'x\n<!-- csv-reference:start -->\nold\n<!-- csv-reference:end -->\n');
    await writeFile(b, '<!-- export-columns:start -->\nold\n<!-- export-columns:end -->\n');
    process.stdout.write = () => true;
    await buildProgram().parseAsync(['node', 'bintel', 'docs', a, '--readme', b]);
    process.stdout.write = write;
    const [ta, tb] = await Promise.all([readFile(a, 'utf8'), readFile(b, 'utf8')]);
    assert.is(regenerateSections(ta).text, ta);
    assert.match(ta, '### companies.csv');
    assert.is(regenerateSections(tb).text, tb);
    assert.match(tb, '| personnel |');
  } finally {
    process.stdout.write = write;
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
