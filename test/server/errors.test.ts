/**
 * Errors: the README's error table agrees with the catalogue and the typed issue list; the
 * adapters turn a dead Elasticsearch or Redis into ServiceUnavailableError (real clients on a
 * closed port); the envelope maps typed errors, never message text, and sends no stack traces.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { createEs } from '../../core/adapters/es.ts';
import { createRedis } from '../../core/adapters/redis.ts';
import { RejectedError, ServiceUnavailableError } from '../../core/errors.ts';
import { ENTITIES } from '../../mappings/index.ts';
import { CATALOGUE, ISSUE_CODES } from '../../server/errors.ts';
import { envelope } from '../../server/middleware/envelope.ts';
import { COMMON_LIST_PARAMS } from '../../server/read/list-request.ts';
import { filterParams } from '../../server/read/filters.ts';

const t = suite('errors');

/** The rows of the README's "### Errors" table. */
async function errorTable(): Promise<string[]> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('\n## ', readme.indexOf('### Errors')));
  return section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Status') && !l.startsWith('|---'));
}

t('the README error table names every catalogue code, and every issue word it names is a typed issue code', async () => {
  const rows = await errorTable();
  const codes = new Set(rows.flatMap((r) => [...r.split('|')[2].matchAll(/`([A-Z_]+)`/g)].map((m) => m[1])));
  assert.equal(Object.keys(CATALOGUE).filter((c) => !codes.has(c)), [], 'catalogue codes missing from the table');
  assert.equal([...codes].filter((c) => !(c in CATALOGUE)), [], 'table codes missing from the catalogue');
  // Backticked snake_case words in the "When" column are issue codes, or the names of parameters and fields they refer to.
  const names = new Set<string>([...COMMON_LIST_PARAMS, ...ENTITIES.flatMap((d) => [...filterParams(d), ...d.fields.map((f) => f.name)])]);
  const words = rows.flatMap((r) => [...r.split('|').slice(3).join('|').matchAll(/`([a-z]+(?:_[a-z0-9]+)+|[a-z]+)`/g)].map((m) => m[1]));
  const issues = words.filter((w) => !names.has(w) && !['body', 'request', 'expected', 'details'].includes(w));
  assert.ok(issues.length >= 30, `the table names issue codes (${issues.length} found)`);
  assert.equal(issues.filter((w) => !(ISSUE_CODES as readonly string[]).includes(w)), [], 'issue words in the README that are not typed issue codes');
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

t('a dead Elasticsearch is ServiceUnavailableError from the general client', async () => {
  const es = createEs({ esUrl: `http://127.0.0.1:${await closedPort()}` }, { maxRetries: 0, requestTimeout: 2000 });
  try {
    const err = await es.search({ index: 'x' }).then(() => null, (e: unknown) => e);
    assert.instance(err, ServiceUnavailableError);
    assert.is((err as ServiceUnavailableError).service, 'elasticsearch');
  } finally {
    await es.close();
  }
});

t('a dead Redis is ServiceUnavailableError for commands and pipelines; an error reply is RejectedError', async () => {
  const redis = createRedis({ redisUrl: `redis://127.0.0.1:${await closedPort()}` });
  redis.on('error', () => {});
  try {
    const err = await redis.get('x').then(() => null, (e: unknown) => e);
    assert.instance(err, ServiceUnavailableError);
    assert.is((err as ServiceUnavailableError).service, 'redis');
    const piped = await redis.multi().get('x').exec().then(() => null, (e: unknown) => e);
    assert.instance(piped, ServiceUnavailableError);
  } finally {
    redis.disconnect();
  }
  const live = createRedis({ redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379' });
  try {
    const reply = await live.eval('return redis.error_reply("boom")', 0).then(() => null, (e: unknown) => e);
    assert.instance(reply, RejectedError);
    assert.is(await live.ping(), 'PONG', 'successful commands pass through unchanged');
  } finally {
    live.disconnect();
  }
});

t('the envelope maps typed errors: unavailable is 503 naming the service, rejected is 500; no stack, no message leak', async () => {
  const app = new Koa();
  app.silent = true;
  app.use(envelope(pino({ level: 'silent' })));
  app.use(async (ctx) => {
    if (ctx.path === '/redis') throw new ServiceUnavailableError('redis', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    if (ctx.path === '/es') throw new ServiceUnavailableError('elasticsearch');
    if (ctx.path === '/rejected') throw new RejectedError('elasticsearch', 400, { error: { type: 'search_phase_execution_exception', reason: 'secret index detail' } });
    // A plain error whose message looks like a connection failure is not one: 500, as any bug.
    throw new Error('ECONNREFUSED Connection is closed');
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const call = async (path: string) => {
      const res = await fetch(base + path);
      return { status: res.status, body: (await res.json()) as { ok: boolean; error: { code: string; message: string; details: unknown[] }; meta: unknown } };
    };
    const redis = await call('/redis');
    assert.is(redis.status, 503);
    assert.is(redis.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.match(redis.body.error.message, /Redis/);
    const es = await call('/es');
    assert.is(es.status, 503);
    assert.match(es.body.error.message, /Elasticsearch/);
    for (const path of ['/rejected', '/plain']) {
      const r = await call(path);
      assert.is(r.status, 500, path);
      assert.is(r.body.error.code, 'INTERNAL');
      assert.not.match(JSON.stringify(r.body), /secret index detail|ECONNREFUSED|at .*\.ts:\d+/);
      assert.equal(r.body.meta, { credits_charged: 0 });
    }
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

t.run();
