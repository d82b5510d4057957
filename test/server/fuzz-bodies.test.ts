/**
 * Hostile input over every endpoint that takes a body or a path parameter (from the operation
 * table the OpenAPI document is built from): random JSON values, deep nesting, huge strings,
 * Unicode edge cases and lone surrogates, wrong content types, oversize bodies, odd headers.
 * Never a 5xx, never a stack trace, always the envelope; a rejected call charges nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { operations } from '../../server/openapi/operations.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from './harness.ts';

const t = suite('fuzz bodies');
let h: Harness;
let data: DataFiles | undefined;
let org = '';
let secret = '';

t.before(async () => {
  h = await startHarness({ BINTEL_RATE_LIMIT_PER_MIN: '1000000', BINTEL_CRAWL_THRESHOLD: '1000000' });
  data = await loadGenerated(h, { companies: 40, personnel: 20, brokerOffices: 5, brokers: 2, seed: 111 });
  ({ org, secret } = await withOrg(h, { field_tier: 'advanced', milli: 1_000_000_000 }));
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
});

const HOSTILE_STRINGS = ['', ' ', '\u0000', '\ud800', '\udfff', 'a\ud83dz', '💡'.repeat(500), 'x'.repeat(70_000), '../../etc/passwd', '*', '<script>', '{"a":1}', 'Ω≈ç√', '\r\nX-Injected: 1', 'null', '-1', '1e309'];
const deep = (n: number): unknown => (n === 0 ? 'bottom' : { a: deep(n - 1), b: [n] });
const VALUE: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...HOSTILE_STRINGS, null, true, false, 0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2),
    fc.string({ maxLength: 30 }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('type', 'seed_ids', 'filters', 'limit', 'entity_type', 'entity_id', 'field', 'issue', 'message', 'endpoint', 'payload', 'scopes', 'tag', 'ids', 'resource', 'max_rows', 'channel', 'identity', 'target', 'sender', 'writing', 'source_mode', '__proto__', 'constructor'), tie('v'), { maxKeys: 6 }),
  ),
})).v;

/** Every operation with a body, and every path with parameters, as concrete paths. */
function targets(): { method: string; path: string; body: boolean }[] {
  return operations()
    .filter((op) => op.access.kind !== 'public' || op.path.includes('{'))
    .filter((op) => op.body || op.path.includes('{'))
    .map((op) => ({ method: op.method.toUpperCase(), path: op.path.replace(/\{[^}]+\}/g, 'x1'), body: !!op.body }));
}

function assertEnveloped(res: { status: number; body: any }, what: string): void {
  assert.ok(res.status < 500 || res.status === 503, `${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  if (typeof res.body === 'object' && res.body !== null) {
    assert.type(res.body.ok, 'boolean', what);
    if (!res.body.ok) {
      assert.type(res.body.error?.code, 'string', what);
      assert.not.ok(/\n\s+at /.test(JSON.stringify(res.body)), `${what}: a stack trace`);
    }
  }
}

t('random and hostile JSON bodies on every body-taking endpoint: never a 5xx, always the envelope, nothing charged on rejection', async () => {
  const list = targets().filter((x) => x.body);
  assert.ok(list.length >= 15, `${list.length} body-taking operations`);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...list), VALUE, async (op, body) => {
      const before = await h.running.services.credits.balance(org);
      const res = await h.call(op.method, op.path, { secret, body });
      assertEnveloped(res, `${op.method} ${op.path} ${JSON.stringify(body).slice(0, 120)}`);
      if (res.status >= 400) assert.is(await h.running.services.credits.balance(org), before, `${op.method} ${op.path}: a rejected call charged`);
    }),
    { numRuns: 300 },
  );
});

t('deep nesting, oversize and non-JSON bodies, odd headers and path parameters', async () => {
  for (const op of targets()) {
    const what = `${op.method} ${op.path}`;
    if (op.body) {
      assertEnveloped(await h.call(op.method, op.path, { secret, raw: JSON.stringify(deep(3000)) }), `${what} deep`);
      assertEnveloped(await h.call(op.method, op.path, { secret, raw: '{"a":' }), `${what} truncated`);
      assertEnveloped(await h.call(op.method, op.path, { secret, raw: `{"x":"${'y'.repeat(1_100_000)}"}` }), `${what} oversize`);
      assertEnveloped(await h.call(op.method, op.path, { secret, raw: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), `${what} form`);
      assertEnveloped(await h.call(op.method, op.path, { secret, raw: '"\\ud800"' }), `${what} lone surrogate`);
    }
    for (const id of ['%00', '%E0%A4%A', '..%2F..%2Fetc', 'a'.repeat(3000), '%F0%9F%92%A1']) {
      assertEnveloped(await h.call(op.method, op.path.replace('x1', id), { secret, body: op.body ? {} : undefined }), `${what} id ${id.slice(0, 20)}`);
    }
    assertEnveloped(await h.call(op.method, op.path, { secret, headers: { 'Idempotency-Key': '\u00ff'.repeat(300), 'If-Match': '"' + 'z'.repeat(5000) }, body: op.body ? {} : undefined }), `${what} headers`);
  }
});

t.run();
