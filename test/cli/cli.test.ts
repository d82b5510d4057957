/**
 * The CLI contract, as operators use it: real processes, real Redis and Elasticsearch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { closeAll, testConfig } from '../helpers/env.ts';
import { bintel as run } from '../helpers/cli.ts';

const ns = testConfig().namespace;

/** A command run in this process (test/helpers/cli.ts), in the run's namespace. */
const bintel = (...args: string[]) => run(args, { BINTEL_NAMESPACE: ns });

test.after(() => closeAll());

test('--help lists every command', async () => {
  const r = await bintel('--help');
  assert.is(r.code, 0);
  for (const c of ['es', 'up', 'generate', 'ingest', 'reindex', 'indices', 'rollback', 'serve', 'keys', 'credits', 'test']) assert.match(r.out, new RegExp(`\\n  ${c}\\b`));
});

test('keys create --json prints one object with id and secret; list, rotate and revoke follow', async () => {
  const org = `cli-${randomUUID().slice(0, 8)}`;
  const created = await bintel('keys', 'create', '--org', org, '--user', 'ops', '--tier', 'basic', '--scopes', 'read:companies,keys:read', '--json');
  assert.is(created.code, 0, created.err);
  const key = JSON.parse(created.out);
  assert.match(key.id, /^key_/);
  assert.match(key.secret, /^bk_live_[A-Za-z0-9]{40}$/);
  assert.is(key.field_tier, 'basic');
  assert.equal(key.scopes, ['read:companies', 'keys:read']);
  assert.is(key.secret_hash, undefined);

  const list = JSON.parse((await bintel('keys', 'list', '--org', org, '--json')).out);
  assert.is(list.length, 1);
  assert.is(list[0].secret, undefined);
  assert.is(list[0].secret_hash, undefined);

  const rotated = JSON.parse((await bintel('keys', 'rotate', key.id, '--json')).out);
  assert.is.not(rotated.secret, key.secret);
  const revoked = JSON.parse((await bintel('keys', 'revoke', key.id, '--json')).out);
  assert.is(revoked.status, 'revoked');

  const test = JSON.parse((await bintel('keys', 'create', '--org', org, '--user', 'ops', '--type', 'test', '--json')).out);
  assert.match(test.secret, /^bk_test_/);
  const bad = await bintel('keys', 'create', '--org', org, '--user', 'ops', '--scopes', 'read:everything');
  assert.is.not(bad.code, 0);
  assert.match(bad.err, /unknown scope/);
});

test('credits grant and show, in credits with up to three decimals', async () => {
  const org = `cli-${randomUUID().slice(0, 8)}`;
  assert.is(JSON.parse((await bintel('credits', 'grant', '--org', org, '--amount', '12.5', '--json')).out).balance, 12.5);
  assert.is(JSON.parse((await bintel('credits', 'grant', '--org', org, '--amount', '0.125', '--json')).out).balance, 12.625);
  assert.is(JSON.parse((await bintel('credits', 'show', '--org', org, '--json')).out).balance, 12.625);
  const bad = await bintel('credits', 'grant', '--org', org, '--amount', 'lots');
  assert.is.not(bad.code, 0);
});

test('ingest: a missing file exits 2 with a clear message; an unknown resource is a usage error', async () => {
  const r = await bintel('ingest', 'companies', '/nonexistent/file.csv');
  assert.is(r.code, 2);
  assert.match(r.err, /file not found: \/nonexistent\/file.csv/);
  const u = await bintel('ingest', 'widgets', 'x.csv');
  assert.is.not(u.code, 0);
  assert.match(u.err, /companies, personnel, broker-offices, brokers|brokers, broker-offices, companies, personnel/);
});

test.run();
