/**
 * Every scope a key can hold gates something: each non-data scope of ALL_SCOPES is required by
 * at least one route (requireScope in server/), and each data-read scope by the reads of its
 * resource. A scope that gated nothing (credits:read: GET /v1/credits answers every live key)
 * is retired: accepted where scopes are given, and dropped.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_SCOPES, DATA_READ_SCOPES, RETIRED_SCOPES, withoutRetired } from '../../server/scopes.ts';

const t = suite('scopes');
const SERVER = fileURLToPath(new URL('../../server', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [readFileSync(join(dir, e.name), 'utf8')] : []));
}

t('every scope a key can hold is required by some route', () => {
  const text = sources(SERVER).join('\n');
  const required = new Set([...text.matchAll(/requireScope\(\s*\w+,\s*'([a-z:-]+)'\s*\)/g)].map((m) => m[1]));
  // Data-read scopes are required as `read:${def.name}` for every resource.
  const templated = /requireScope\(\s*\w+,\s*`read:\$\{[\w.]+\}`\s*\)/.test(text);
  const ungated = ALL_SCOPES.filter((s) => !required.has(s) && !(templated && DATA_READ_SCOPES.includes(s)));
  assert.equal(ungated, []);
});

t('a retired scope is no scope a key can hold, and is dropped where given', () => {
  for (const s of RETIRED_SCOPES) assert.not.ok(ALL_SCOPES.includes(s), s);
  assert.equal(withoutRetired(['read:companies', 'credits:read', 'tags:read']), ['read:companies', 'tags:read']);
});

t.run();
