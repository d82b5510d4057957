/**
 * The dated changelog: GET /v1/changelog serves CHANGELOG.md as JSON without a key; the version
 * in package.json, the OpenAPI document's info and the newest changelog entry agree; the
 * version is the spec's (a SemVer pre-release) and the client package has it too; the
 * behaviour changes the spec records are all there; the OpenAPI info links to it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { parseChangelog } from '../../server/changelog.ts';
import { startHarness, type Harness } from './harness.ts';

const t = suite('changelog');
let h: Harness;

t.before(async () => {
  h = await startHarness();
});
t.after(() => h.close());

t('GET /v1/changelog: no key, dated entries newest first, each change typed', async () => {
  const res = await h.call('GET', '/v1/changelog');
  assert.is(res.status, 200);
  const entries = res.body.data as { version: string; date: string; changes: { type: string; description: string }[] }[];
  assert.ok(entries.length >= 1);
  for (let i = 0; i < entries.length; i++) {
    assert.match(entries[i].date, /^\d{4}-\d{2}-\d{2}$/);
    if (i) assert.ok(entries[i - 1].date >= entries[i].date, 'newest first');
    assert.ok(entries[i].changes.length > 0);
    for (const c of entries[i].changes) {
      assert.ok(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(c.type), c.type);
      assert.ok(c.description.length > 10);
    }
  }
});

t('package.json, the OpenAPI info and the newest changelog entry name the same version', async () => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const doc = (await h.call('GET', '/v1/openapi.json')).body;
  const [newest] = parseChangelog(await readFile(new URL('../../CHANGELOG.md', import.meta.url), 'utf8'));
  assert.is(doc.info.version, pkg.version);
  assert.is(newest.version, pkg.version);
  // The spec fixes the version string (Versioning: "version string 1.0.0-internal-phase-1"), a SemVer 2.0 pre-release.
  assert.is(pkg.version, '1.0.0-internal-phase-1');
  assert.match(pkg.version, /^\d+\.\d+\.\d+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/, `${pkg.version} is a SemVer version`);
  const client = JSON.parse(await readFile(new URL('../../client/package.json', import.meta.url), 'utf8')) as { version: string };
  assert.is(client.version, pkg.version, 'client/package.json has the version of the API it was generated from');
  assert.is(doc.info['x-changelog'], '/v1/changelog');
  assert.match(doc.info.description, '/v1/changelog');
});

t('the behaviour changes the spec records are in the changelog', async () => {
  const text = (await h.call('GET', '/v1/changelog')).body.data.flatMap((e: { changes: { description: string }[] }) => e.changes.map((c) => c.description)).join('\n');
  for (const needle of ['`lead_type` is required', '`lead_source` is an object', 'empty `cf[...]`', '`broker_office_name`', 'Single play creation returns an object', '`companyName` and `versionName`', 'dry runs share the real job']) {
    assert.ok(text.includes(needle), needle);
  }
});

t('each release, [Unreleased] included, has at most one heading of each Keep a Changelog kind, and no internal issue numbers', async () => {
  const text = await readFile(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
  const KINDS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
  for (const release of text.split(/^## /m).slice(1)) {
    const name = release.split('\n')[0];
    const headings = [...release.matchAll(/^### (.+)$/gm)].map((m) => m[1].trim());
    for (const h of headings) assert.ok(KINDS.includes(h), `${name}: "### ${h}" is not one of ${KINDS.join(', ')}`);
    assert.is(new Set(headings).size, headings.length, `${name}: a kind heading twice (${headings.join(', ')})`);
  }
  assert.not.match(text, /\bissue \d+\b/i, 'the changelog speaks to users, not of internal issue numbers');
});

t('the parser: [Unreleased] and undated headings are left out; continued lines join', () => {
  const parsed = parseChangelog('# C\n\n## [Unreleased]\n### Added\n- soon\n\n## [2.0.0] - 2027-01-02\n### Fixed\n- a fix\n  that wraps\n\n## [1.0.0] - 2026-01-01\n### Added\n- first\n');
  assert.equal(parsed, [
    { version: '2.0.0', date: '2027-01-02', changes: [{ type: 'Fixed', description: 'a fix that wraps' }] },
    { version: '1.0.0', date: '2026-01-01', changes: [{ type: 'Added', description: 'first' }] },
  ]);
});

t.run();
