// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * loadConfig: defaults from an empty environment, derived values, and refusals of bad input.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../core/config.ts';

const t = suite('config');

/** Asserts that loading `env` throws a ConfigError whose message matches. */
function refuses(env: NodeJS.ProcessEnv, message: RegExp): void {
  try {
    loadConfig(env);
  } catch (err) {
    assert.instance(err, ConfigError);
    assert.match((err as Error).message, message);
    return;
  }
  assert.unreachable(`loadConfig(${JSON.stringify(env)}) should have thrown`);
}

t('defaults from an empty environment', () => {
  const c = loadConfig({});
  assert.is(c.esUrl, 'http://127.0.0.1:9200');
  assert.is(c.esPort, 9200);
  assert.is(c.redisUrl, 'redis://127.0.0.1:6379');
  assert.is(c.namespace, 'bintel');
  assert.is(c.port, 3000);
  assert.is(c.host, '127.0.0.1');
  assert.is(c.esVersion, '8.19.7');
  assert.is(c.esHeap, '1g');
  assert.is(c.logLevel, 'info');
  assert.is(c.home, process.getuid?.() === 0 ? '/var/lib/bintel' : join(homedir(), '.bintel'));
  assert.ok(Object.isFrozen(c));
});

t('derives the Elasticsearch port and drops trailing slashes', () => {
  const c = loadConfig({ ES_URL: 'http://localhost:9250///', BINTEL_HOME: '/tmp/x', PORT: '0' });
  assert.is(c.esUrl, 'http://localhost:9250');
  assert.is(c.esPort, 9250);
  assert.is(c.home, '/tmp/x');
  assert.is(c.port, 0);
  assert.is(loadConfig({ ES_URL: 'https://es.example' }).esPort, 443);
});

t('accepts a valid namespace', () => {
  assert.is(loadConfig({ BINTEL_NAMESPACE: 'bintel-test-0a1b2c3d' }).namespace, 'bintel-test-0a1b2c3d');
});

t('refuses a bad namespace', () => {
  for (const ns of ['Bintel', '-leading', 'has:colon', 'has space', 'a*', 'x'.repeat(42)]) refuses({ BINTEL_NAMESPACE: ns }, /BINTEL_NAMESPACE/);
});

t('refuses a bad PORT', () => {
  for (const port of ['abc', '70000', '-1', '1.5', '65536']) refuses({ PORT: port }, /PORT/);
});

t('refuses a URL that is not one', () => {
  refuses({ ES_URL: 'not a url' }, /ES_URL/);
  refuses({ REDIS_URL: 'nope' }, /REDIS_URL/);
});

t('refuses non-positive limits', () => {
  refuses({ BINTEL_RATE_LIMIT_PER_MIN: '0' }, /BINTEL_RATE_LIMIT_PER_MIN/);
  refuses({ BINTEL_DAILY_ROW_CAP: 'many' }, /BINTEL_DAILY_ROW_CAP/);
});

t('refuses an HS256 secret shorter than 32 bytes (HS256 keys shorter than its hash are guessable)', () => {
  refuses({ BINTEL_JWT_SECRET: 'short-secret' }, /BINTEL_JWT_SECRET.*32 bytes/);
  refuses({ BINTEL_JWT_SECRET: 'x'.repeat(31) }, /BINTEL_JWT_SECRET/);
  // Bytes, not characters: 11 three-byte characters are 33 bytes.
  assert.is(loadConfig({ BINTEL_JWT_SECRET: '€'.repeat(11) }).jwt.secret, '€'.repeat(11));
  assert.is(loadConfig({ BINTEL_JWT_SECRET: 'x'.repeat(32) }).jwt.secret, 'x'.repeat(32));
});

t.run();
