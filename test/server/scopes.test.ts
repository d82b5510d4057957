/**
 * Every scope a key can hold gates something: each scope of ALL_SCOPES is the access rule of at
 * least one route declaration (server/routes/route.ts enforces it; data-read scopes by the reads
 * of their resource). A scope that gated nothing (credits:read: GET /v1/credits answers every live key)
 * is retired: accepted where scopes are given, and dropped.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ALL_SCOPES, RETIRED_SCOPES, withoutRetired } from '../../server/scopes.ts';
import { documentedRoutes } from '../../server/openapi/operations.ts';

const t = suite('scopes');
t('every scope a key can hold is required by some route', () => {
  const required = new Set(documentedRoutes().flatMap((r) => (r.access.kind === 'scope' ? [r.access.scope] : [])));
  assert.equal(ALL_SCOPES.filter((s) => !required.has(s)), []);
});

t('a retired scope is no scope a key can hold, and is dropped where given', () => {
  for (const s of RETIRED_SCOPES) assert.not.ok(ALL_SCOPES.includes(s), s);
  assert.equal(withoutRetired(['read:companies', 'credits:read', 'tags:read']), ['read:companies', 'tags:read']);
});

t.run();
