/**
 * `bintel state export` / `bintel state import` round-trip a populated namespace into another
 * one: keys authenticate (and a secret is nowhere in the file), pools, usage and tags are the same,
 * feedback reads back; ephemeral keys (rate windows, receipts, count caches) are left out.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanKeys } from '../../core/adapters/redis.ts';
import { unlinkAll } from '../helpers/unlink.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from '../server/harness.ts';
import { bintel as run } from '../helpers/cli.ts';

const t = suite('state export/import');
let h: Harness;
let data: DataFiles | undefined;
let dir = '';

/** A command run in this process (test/helpers/cli.ts), in namespace `ns`. */
const bintel = (ns: string, ...args: string[]) => run(args, { BINTEL_NAMESPACE: ns });

t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bintel-state-'));
  h = await startHarness({ BINTEL_CACHE_TTL_S: '600' });
  data = await loadGenerated(h, { companies: 30, personnel: 10, brokerOffices: 4, brokers: 2, seed: 101 });
});
t.after(async () => {
  await h.close();
  await data?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

t('a populated namespace round-trips into another namespace', async () => {
  const { org, secret, key } = await withOrg(h, { milli: 7_000_000 });
  const rows = (await h.call('GET', '/v1/companies?page_size=3', { secret })).body;
  assert.is((await h.call('POST', '/v1/tags', { secret, body: { entity_type: 'companies', entity_id: rows.data[0].id, tag: 'moved' } })).status, 201);
  const report = (await h.call('POST', '/v1/reports', { secret, body: { endpoint: 'GET /v1/companies', message: 'kept' } })).body.data;
  const balance = await h.running.services.credits.balance(org);
  const usage = await h.running.services.credits.usage(org, key.id);

  const file = join(dir, 'state.jsonl');
  const exported = await bintel(h.config.namespace, 'state', 'export', file);
  assert.is(exported.code, 0, exported.err);
  const text = await readFile(file, 'utf8');
  assert.not.ok(text.includes(secret), 'a secret in the export');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { key: string });
  assert.ok(lines.some((l) => l.key.endsWith(':credits')));
  assert.not.ok(lines.some((l) => /:rl:|:paid:|^count:|^cursor:/.test(l.key)), 'ephemeral keys left out');

  const target = `${h.config.namespace}-copy`;
  const imported = await bintel(target, 'state', 'import', file);
  assert.is(imported.code, 0, imported.err);
  assert.match(imported.out, `imported ${lines.length} keys`);
  const copy = await startHarness({ BINTEL_NAMESPACE: target });
  try {
    const who = await copy.call('GET', '/v1/whoami', { secret });
    assert.is(who.status, 200, 'the key authenticates in the new namespace');
    assert.is(who.body.data.key.id, key.id);
    assert.is(await copy.running.services.credits.balance(org), balance);
    assert.equal(await copy.running.services.credits.usage(org, key.id), usage);
    const tags = await copy.call('GET', '/v1/tags', { secret });
    assert.ok(tags.body.data.some((x: { tag: string }) => x.tag === 'moved'), JSON.stringify(tags.body));
    assert.is((await copy.call('GET', `/v1/reports/${report.id}`, { secret })).body.data.message, 'kept');
  } finally {
    await unlinkAll(copy.running.services.redis, await scanKeys(copy.running.services.redis, `${target}:*`));
    await copy.close();
  }
});

t('a malformed file is refused with its line number', async () => {
  const { writeFile } = await import('node:fs/promises');
  const file = join(dir, 'bad.jsonl');
  await writeFile(file, '{"key":"x","ns":"live","type":"string","value":"1"}\nnot json\n');
  const target = `${h.config.namespace}-bad`;
  const res = await bintel(target, 'state', 'import', file);
  assert.is(res.code, 1);
  assert.match(res.err, 'bad.jsonl:2');
  const redis = h.running.services.redis;
  await unlinkAll(redis, await scanKeys(redis, `${target}:*`));
});

t.run();
