/**
 * The access matrix, generated from the operation table (server/openapi/operations.ts): every
 * keyed operation answers 401 without a key; every operation needing a scope answers 403
 * missing_scope to a live key holding every other scope; every operation needing a live key
 * (access `live`, or a live-only scope) answers 403 test_key_not_allowed to a test key holding
 * every scope. Each call sends the operation's example body and path values its parameters
 * accept, so nothing but access can refuse it. The responses are checked against the document
 * by the harness as any other.
 */
import { suite } from 'uvu';
import { operationKey, operations, type Operation } from '../../server/openapi/operations.ts';
import { ALL_SCOPES, LIVE_ONLY_SCOPES } from '../../server/scopes.ts';
import * as assert from 'uvu/assert';
import { assertError, startHarness, withOrg, type Harness } from './harness.ts';

const t = suite('openapi-access');
let h: Harness;
let org: string;
/** A test key of the organization holding every scope. */
let testKey: string;

t.before(async () => {
  h = await startHarness();
  ({ org } = await withOrg(h));
  testKey = (await h.key({ org, key_type: 'test' })).secret;
});
t.after(async () => h.close());

/** A value a path parameter accepts: its enum's first, a match of its id pattern, or a plain id. */
function sampleValue(schema: { enum?: string[]; pattern?: string } | undefined): string {
  if (schema?.enum?.length) return schema.enum[0];
  const prefix = /^\^([a-z]+_)\[0-9a-f\]\{(\d+)\}\$$/.exec(schema?.pattern ?? '');
  return prefix ? prefix[1] + '0'.repeat(Number(prefix[2])) : 'sample-id1';
}

/** The operation's path with every parameter filled. */
function samplePath(op: Operation): string {
  const params = new Map((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.schema as { enum?: string[]; pattern?: string } | undefined]));
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(sampleValue(params.get(name))));
}

const call = (op: Operation, secret?: string) => h.call(op.method.toUpperCase(), samplePath(op), { secret, ...(op.body ? { body: op.body.example } : {}) });

const keyed = operations().filter((op) => op.access.kind !== 'public');
const needsLive = (op: Operation): boolean => op.access.kind === 'live' || (op.access.kind === 'scope' && LIVE_ONLY_SCOPES.includes(op.access.scope));

t('the table has keyed, scoped and live-only operations to check', () => {
  if (keyed.length < 40 || !keyed.some(needsLive) || !keyed.some((op) => op.access.kind === 'scope')) throw new Error(`only ${keyed.length} keyed operations`);
});

for (const op of keyed) {
  t(`${operationKey(op)}: no key 401`, async () => {
    assertError(await call(op), 401, 'UNAUTHORIZED');
  });
  if (op.access.kind === 'scope' && op.access.root) {
    // A root API key may call it whatever its scopes (the scope is for child keys and tokens: test/server/feedback.test.ts).
    const needed = op.access.scope;
    t(`${operationKey(op)}: a root key without ${needed} is not refused for the scope`, async () => {
      const { secret } = await h.key({ org, scopes: ALL_SCOPES.filter((s) => s !== needed) });
      const res = await call(op, secret);
      assert.not.ok(res.status === 403 && res.body.error.details.some((d: { issue: string }) => d.issue === 'missing_scope'), JSON.stringify(res.body));
    });
  } else if (op.access.kind === 'scope') {
    const needed = op.access.scope;
    t(`${operationKey(op)}: a key without ${needed} 403 missing_scope`, async () => {
      const { secret } = await h.key({ org, scopes: ALL_SCOPES.filter((s) => s !== needed) });
      assertError(await call(op, secret), 403, 'FORBIDDEN', { field: 'authorization', issue: 'missing_scope' });
    });
  }
  if (needsLive(op)) {
    t(`${operationKey(op)}: a test key 403 test_key_not_allowed`, async () => {
      assertError(await call(op, testKey), 403, 'FORBIDDEN', { field: 'authorization', issue: 'test_key_not_allowed' });
    });
  }
}

t.run();
