// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The committed client matches the document: client/src/generated.ts regenerated in memory from
 * the document the server serves must equal the file (else: `npm run client:generate`). The
 * schema translation is checked on exact outputs, and the check itself must fail on a document
 * that differs. The package stands alone: client/src imports nothing outside itself and no package.
 */
import { readdir, readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openApiDocument } from '../../server/openapi/document.ts';
import { generateClient } from '../../client/generator/generate.ts';
import { GENERATED_FILE, currentClientSource } from '../../client/generator/main.ts';
import { tsType } from '../../client/generator/schema-to-ts.ts';

const t = suite('client generated');

t('the committed client is the one the current document generates', async () => {
  const committed = await readFile(GENERATED_FILE, 'utf8');
  const fresh = currentClientSource();
  if (committed === fresh) return;
  const a = committed.split('\n');
  const b = fresh.split('\n');
  const line = a.findIndex((l, i) => l !== b[i]);
  assert.unreachable(`client/src/generated.ts differs from the document at line ${line + 1}:\n  committed: ${a[line]}\n  generated: ${b[line]}\nRun \`npm run client:generate\` and commit the result.`);
});

t('the check can fail: a document with one more operation generates another client', () => {
  const extra = openApiDocument({ extra: [{ method: 'get', path: '/v1/extra-thing', tag: 'account', summary: 'Extra', access: { kind: 'key' }, success: { data: { type: 'object', properties: { n: { type: 'integer' } } } } }] });
  const source = generateClient(extra);
  assert.is.not(source, currentClientSource());
  assert.ok(source.includes("getExtraThing: { method: 'GET', path: '/v1/extra-thing', kind: 'envelope' }"));
  assert.ok(source.includes('EnvelopeSuccess<200, {\n      n?: number;\n    }, Meta>'), 'typed data and meta');
});

t('generation is deterministic', () => {
  assert.is(generateClient(openApiDocument()), generateClient(openApiDocument()));
});

t('schemas to types: primitives, nullables, enums, consts, refs, unions, intersections', () => {
  assert.is(tsType({ type: 'integer' }), 'number');
  assert.is(tsType({ type: ['string', 'null'] }), 'string | null');
  assert.is(tsType({ type: ['string', 'null'], enum: ['a', 'b', null] }), '"a" | "b" | null');
  assert.is(tsType({ const: false }), 'false');
  assert.is(tsType({ $ref: '#/components/schemas/CompaniesRow' }), 'CompaniesRow');
  assert.is(tsType({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }), 'string | string[]');
  assert.is(tsType({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] } }), 'Array<string | number>');
  assert.is(tsType({ allOf: [{ $ref: '#/x/A' }, { $ref: '#/x/B' }] }), 'A & B');
  assert.is(tsType({ description: 'anything' }), 'unknown');
  assert.is(tsType({ type: 'object' }), 'Record<string, unknown>');
});

t('objects: required members, optional ones with their descriptions, closed and open maps', () => {
  assert.is(tsType({ type: 'object', required: ['id'], properties: { id: { type: 'string' }, 'a-b': { type: 'integer', description: 'Dashed.' } } }), '{\n  id: string;\n  /** Dashed. */\n  "a-b"?: number;\n}');
  assert.is(tsType({ type: 'object', additionalProperties: { type: 'string' } }), '{\n  [key: string]: string;\n}');
  assert.is(tsType({ type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: { type: 'string' } }), '{\n  n: number;\n  [key: string]: string | number | undefined;\n}');
  assert.is(tsType({ type: 'object', additionalProperties: false }), 'Record<string, never>');
});

t('client/src stands alone: no import outside the folder, no package (the global fetch only)', async () => {
  const dir = new URL('../../client/src/', import.meta.url);
  const found: string[] = [];
  for (const file of await readdir(dir)) {
    const text = await readFile(new URL(file, dir), 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm)) {
      if (!/^\.\/[\w-]+\.ts$/.test(m[1])) found.push(`${file} imports ${m[1]}`);
    }
  }
  assert.equal(found, []);
});

t.run();
