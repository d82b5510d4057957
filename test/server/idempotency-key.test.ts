/**
 * The Idempotency-Key header: the OpenAPI document names every operation that accepts it, and
 * each of them validates it the same way (server/validate.ts `idempotencyKeyOf`: 1 to 255
 * printable ASCII characters), before it reads the body: a malformed key is 400
 * `idempotency-key`/`invalid_format` with the same message and `expected` everywhere, and
 * nothing is charged. A well-formed key of the longest length is accepted by all of them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('idempotency-key');
let h: Harness;
let org = '';
let secret = '';
let doc: any;

/** The operations that accept an Idempotency-Key (the document must name exactly these). */
const ACCEPTING = ['POST /v1/data-flags', 'POST /v1/exports', 'POST /v1/reports', 'POST /v1/review-flags', 'POST /v1/writing-jobs'];

/** The documented operations that take an Idempotency-Key header. */
function documented(): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      if (op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

t.before(async () => {
  h = await startHarness();
  ({ org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 10_000_000 }));
  doc = (await h.call('GET', '/v1/openapi.json')).body;
});
t.after(() => h.close());

t('the document names the operations that accept an Idempotency-Key, with its form', () => {
  assert.equal(documented(), ACCEPTING);
  const param = doc.paths['/v1/exports'].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
  assert.equal(param.schema, { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]{1,255}$' });
});

t('every one of them refuses a malformed key the same way, before the body, charging nothing', async () => {
  const before = await h.running.services.credits.balance(org);
  // '' : a header sent empty is a malformed key, not an absent one.
  const bad = ['', 'has space', 'tab\there', 'x'.repeat(256), 'clé', '"quoted"\u0080'];
  const answers = new Set<string>();
  for (const op of ACCEPTING) {
    const [method, path] = op.split(' ');
    for (const key of bad) {
      const res = await h.call(method, path, { secret, body: {}, headers: { 'Idempotency-Key': key } });
      assertError(res, 400, 'VALIDATION_ERROR', { field: 'idempotency-key', issue: 'invalid_format' });
      assert.is(res.body.error.details.length, 1, `${op} ${JSON.stringify(key)}: the header alone is named`);
      answers.add(JSON.stringify([res.body.error.message, res.body.error.details]));
    }
  }
  assert.is(answers.size, 1, `one answer for all: ${[...answers].join(' | ')}`);
  assert.is(await h.running.services.credits.balance(org), before);
});

t('a key of 255 printable characters passes the header check everywhere (the body is then checked)', async () => {
  const key = `${'!~aZ09'.repeat(42)}xyz`;
  assert.is(key.length, 255);
  for (const op of ACCEPTING) {
    const [method, path] = op.split(' ');
    const res = await h.call(method, path, { secret, body: {}, headers: { 'Idempotency-Key': key } });
    assert.is(res.status, 400, op);
    assert.not.ok(res.body.error.details.some((d: { field: string }) => d.field === 'idempotency-key'), `${op}: ${JSON.stringify(res.body.error.details)}`);
  }
});

t.run();
