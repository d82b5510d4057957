/**
 * Errors end to end: the error table of docs/api.md against the catalogue and the issue-code union;
 * the envelope's mapping of each typed adapter error (a tiny Koa app over HTTP); and the
 * adapters against real services: a closed port is ServiceUnavailableError for Elasticsearch
 * (general client and lean path) and Redis (commands, scripts, MULTI, pipelines), and answers
 * that refuse are NotFoundError or RejectedError.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import { CATALOGUE, ISSUE_CODES, ApiError } from '../server/errors.ts';
import { envelope } from '../server/middleware/envelope.ts';
import { NotFoundError, RejectedError, ServiceUnavailableError } from '../core/errors.ts';
import { createEs } from '../core/adapters/es.ts';
import { createEsSearch } from '../core/adapters/es-search.ts';
import { createRedis, defineScript } from '../core/adapters/redis.ts';
import { createServices } from '../server/context.ts';
import { createApp } from '../server/app.ts';
import { checkedFetch } from './helpers/contract.ts';
import { closeAll, testConfig, testEs, testIndex, testRedis } from './helpers/env.ts';

// ---------------------------------------------------------------------------------------------
const docs = suite('errors: docs/api.md table, catalogue and issue codes');

/** The rows of the "### Errors" table of docs/api.md (up to the next heading), as [status, code, when] cells. */
async function errorTable(): Promise<{ rows: string[][]; after: string }> {
  const guide = await readFile(new URL('../docs/api.md', import.meta.url), 'utf8');
  const start = guide.indexOf('\n### Errors\n');
  assert.ok(start >= 0, 'docs/api.md has an Errors section');
  const end = guide.slice(start + 1).search(/\n#{1,3} /);
  const section = end === -1 ? guide.slice(start) : guide.slice(start, start + 1 + end);
  const lines = section.split('\n');
  const rows = lines.filter((l) => /^\| \d/.test(l)).map((l) => l.split(' | ').map((c) => c.replace(/^\| | \|$/g, '')));
  return { rows, after: lines.filter((l) => !l.startsWith('|')).join('\n') };
}

/** Words of the table that are not issues: query parameters it names, and envelope properties. */
const NOT_ISSUES = ['has_phone', 'signals', 'expected', 'details'];

docs('every issue code the table names is a member of the union', async () => {
  const { rows } = await errorTable();
  assert.ok(rows.length >= 10, 'the table was found');
  const named = new Set<string>();
  for (const [, , when] of rows) {
    // `field`/`issue` pairs: the word before the slash is a field.
    const fields = new Set([...when.matchAll(/`([^`]+)`\/`/g)].map((m) => m[1]));
    for (const [, word] of when.matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)) if (!fields.has(word) && !NOT_ISSUES.includes(word)) named.add(word);
  }
  const codes: readonly string[] = ISSUE_CODES;
  for (const p of NOT_ISSUES) assert.not.ok(codes.includes(p), `${p} is listed as not an issue but is an issue code`);
  const unknown = [...named].filter((w) => !codes.includes(w));
  assert.equal(unknown, [], `issue codes in the docs/api.md table that the code does not know: ${unknown.join(', ')}`);
  for (const settled of ['unsupported_media_type', 'invalid_integer', 'invalid_type']) assert.ok(named.has(settled), `${settled} is documented`);
});

docs('every catalogue code appears in the table, and the table names no other', async () => {
  const { rows } = await errorTable();
  const inTable = rows.flatMap(([, code]) => [...code.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]));
  assert.equal([...inTable].sort(), Object.keys(CATALOGUE).sort());
});

docs('the docs/api.md list of issue words is ISSUE_CODES, each once; the drifted spellings are gone', async () => {
  const { after } = await errorTable();
  const line = after.split('\n').find((l) => l.startsWith('`malformed_json`'));
  assert.ok(line, 'the list of issue words follows the table');
  const listed = [...line.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
  assert.equal(listed, [...ISSUE_CODES]);
  assert.is(new Set(ISSUE_CODES).size, ISSUE_CODES.length, 'no code twice');
  assert.not.ok((ISSUE_CODES as readonly string[]).includes('unsupported'));
});

docs.run();

// ---------------------------------------------------------------------------------------------
const mapping = suite('errors: the envelope maps adapter errors by type');

const es = (cause?: unknown) => ({ service: 'elasticsearch' as const, cause });
/** What each route throws, and the status, code and message words the caller must see. */
const CASES: { path: string; error: () => unknown; status: number; code: string; says?: string; hides?: string }[] = [
  { path: '/es-down', error: () => new ServiceUnavailableError({ ...es(new Error('connect ECONNREFUSED 10.0.0.7:9200')), detail: 'connect ECONNREFUSED 10.0.0.7:9200' }), status: 503, code: 'SERVICE_UNAVAILABLE', says: 'Elasticsearch is unavailable', hides: '10.0.0.7' },
  { path: '/redis-down', error: () => new ServiceUnavailableError({ service: 'redis', detail: 'Connection is closed.' }), status: 503, code: 'SERVICE_UNAVAILABLE', says: 'Redis is unavailable', hides: 'Connection is closed' },
  { path: '/no-index', error: () => new NotFoundError({ ...es(), what: 'index', id: 'bintel-secret-companies' }), status: 503, code: 'SERVICE_UNAVAILABLE', says: 'not loaded', hides: 'bintel-secret' },
  { path: '/no-doc', error: () => new NotFoundError({ ...es(), what: 'document', id: 'doc-77' }), status: 500, code: 'INTERNAL', hides: 'doc-77' },
  { path: '/rejected', error: () => new RejectedError({ ...es(), statusCode: 400, type: 'parsing_exception', reason: 'unknown query [bogus]' }), status: 500, code: 'INTERNAL', hides: 'bogus' },
  { path: '/script', error: () => new RejectedError({ service: 'redis', type: 'ERR', reason: 'ERR user_script:1: oops' }), status: 500, code: 'INTERNAL', hides: 'oops' },
  { path: '/bug', error: () => new TypeError("Cannot read properties of undefined (reading 'x')"), status: 500, code: 'INTERNAL', hides: 'undefined' },
  // A driver's own error that escaped translation is a 500, whatever its name or message says.
  { path: '/named', error: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { name: 'ConnectionError' }), status: 500, code: 'INTERNAL', hides: 'ECONNREFUSED' },
  { path: '/api', error: () => new ApiError('CONFLICT', 'The key is revoked'), status: 409, code: 'CONFLICT', says: 'The key is revoked' },
];

let server: Server;
let base = '';
const logged: Record<string, unknown>[] = [];

mapping.before(async () => {
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) });
  const app = new Koa();
  app.silent = true;
  app.use(envelope(pino({ level: 'error' }, sink)));
  app.use(async (ctx) => {
    const c = CASES.find((x) => x.path === ctx.path);
    if (c) throw c.error();
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
mapping.after(() => new Promise<void>((r) => server.close(() => r())));

for (const c of CASES) {
  mapping(`${c.path}: ${c.status} ${c.code}`, async () => {
    logged.length = 0;
    const res = await fetch(base + c.path);
    const text = await res.text();
    const body = JSON.parse(text) as { ok: boolean; error: { code: string; message: string; details: unknown[] }; meta: { credits_charged: number } };
    assert.is(res.status, c.status);
    assert.is(body.ok, false);
    assert.is(body.error.code, c.code);
    assert.is(body.meta.credits_charged, 0);
    if (c.says) assert.match(body.error.message, c.says);
    if (c.hides) assert.not.match(text, c.hides, 'internal detail is logged, never sent');
    if (c.status >= 500) {
      assert.not.match(text, /\n\s+at /, 'no stack');
      assert.is(logged.length, 1, 'a 5xx is logged once');
      if (c.hides) assert.match(JSON.stringify(logged[0]), c.hides, 'the log carries what the caller does not see');
    } else {
      assert.is(logged.length, 0, 'a caller error is not logged as a failure');
    }
  });
}

mapping.run();

// ---------------------------------------------------------------------------------------------
const live = suite('errors: adapters against real services');

/** A port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

live('Elasticsearch on a closed port: ServiceUnavailableError from the general client and the lean path', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const client = createEs({ esUrl: url }, { maxRetries: 0, requestTimeout: 2000 });
  const lean = createEsSearch(url, { requestTimeout: 2000 });
  try {
    for (const call of [() => client.cluster.health(), () => client.search({ index: 'x' }), () => lean.search('x', {})]) {
      const err = await call().catch((e: unknown) => e);
      assert.instance(err, ServiceUnavailableError);
      assert.is((err as ServiceUnavailableError).service, 'elasticsearch');
      assert.ok((err as Error).cause, 'the driver error is kept as cause');
    }
  } finally {
    await Promise.all([client.close(), lean.close()]);
  }
});

live('Redis on a closed port: ServiceUnavailableError for commands, scripts, MULTI, pipelines and connect', async () => {
  const client = createRedis({ redisUrl: `redis://127.0.0.1:${await closedPort()}` }, { maxRetriesPerRequest: 0, connectTimeout: 500 });
  client.on('error', () => {});
  const script = defineScript<number, []>({ name: 'test:errors-answer', keys: 0, lua: 'return 42' });
  try {
    const started = Date.now();
    const errors = await Promise.all([
      client.get('k').catch((e: unknown) => e),
      script.run(client, [], []).catch((e: unknown) => e),
      client.multi().get('k').set('k', '1').exec().catch((e: unknown) => e),
      client.connect().catch((e: unknown) => e),
    ]);
    for (const err of errors) {
      assert.instance(err, ServiceUnavailableError);
      assert.is((err as ServiceUnavailableError).service, 'redis');
    }
    // A plain pipeline reports per command, as ioredis does: each entry holds the typed error.
    const piped = await client.pipeline().get('k').exec().catch((e: unknown) => e);
    const first = Array.isArray(piped) ? (piped[0] as unknown[])[0] : piped;
    assert.instance(first, ServiceUnavailableError);
    assert.ok(Date.now() - started < 5000, 'fails fast');
  } finally {
    client.disconnect();
  }
});

live('Elasticsearch answers: a missing index is NotFoundError, a wrong query RejectedError, an ignored 404 returns', async () => {
  const index = testIndex(`errors-${randomUUID().slice(0, 8)}`);
  const missing = await testEs().search({ index }).catch((e: unknown) => e);
  assert.instance(missing, NotFoundError);
  assert.equal([(missing as NotFoundError).what, (missing as NotFoundError).id], ['index', index]);
  await testEs().indices.create({ index });
  try {
    const doc = await testEs().get({ index, id: 'nope' }).catch((e: unknown) => e);
    assert.instance(doc, NotFoundError);
    assert.equal([(doc as NotFoundError).what, (doc as NotFoundError).id], ['document', 'nope']);
    assert.is((await testEs().get({ index, id: 'nope' }, { ignore: [404] })).found, false);
    const wrong = await testEs().search({ index, query: { bogus: {} } as never }).catch((e: unknown) => e);
    assert.instance(wrong, RejectedError);
    assert.equal([(wrong as RejectedError).statusCode, (wrong as RejectedError).type], [400, 'parsing_exception']);
    const lean = createEsSearch(testConfig().esUrl);
    const leanWrong = await lean.search(index, { query: { bogus: {} } }).catch((e: unknown) => e);
    await lean.close();
    assert.instance(leanWrong, RejectedError);
    assert.is((leanWrong as RejectedError).type, 'parsing_exception');
  } finally {
    await testEs().indices.delete({ index });
  }
});

live('Redis answers: a script that raises and a wrong-type command are RejectedError, not unavailability', async () => {
  const redis = testRedis();
  const raise = defineScript<never, []>({ name: 'test:errors-raise', keys: 0, lua: "return redis.error_reply('BINTELTEST raised on purpose')" });
  const raised = await raise.run(redis, [], []).catch((e: unknown) => e);
  assert.instance(raised, RejectedError);
  assert.is((raised as RejectedError).type, 'BINTELTEST');
  const key = `${testConfig().namespace}:errors:${randomUUID()}`;
  await redis.set(key, 'text', 'EX', 60);
  const wrongType = await redis.hget(key, 'f').catch((e: unknown) => e);
  await redis.del(key);
  assert.instance(wrongType, RejectedError);
  assert.is((wrongType as RejectedError).type, 'WRONGTYPE');
});

/** GET `path` on the real app whose Elasticsearch or Redis URL points at a closed port. */
async function callWithDead(dead: 'esUrl' | 'redisUrl', path: string, headers: Record<string, string> = {}) {
  const port = await closedPort();
  const url = dead === 'esUrl' ? `http://127.0.0.1:${port}` : `redis://127.0.0.1:${port}`;
  const services = createServices({ ...testConfig(), [dead]: url, ...(dead === 'esUrl' ? { esNodes: [url] } : {}) });
  const app = createApp(services).listen(0, '127.0.0.1');
  await new Promise((r) => app.once('listening', r));
  try {
    const res = await checkedFetch(`http://127.0.0.1:${(app.address() as { port: number }).port}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string; details: { field: string; issue: string }[] } } };
  } finally {
    await new Promise<void>((r) => app.close(() => r()));
    await services.close();
  }
}

live('GET /v1/health with a dependency down: 503 SERVICE_UNAVAILABLE naming it', async () => {
  for (const [dead, field] of [['esUrl', 'elasticsearch'], ['redisUrl', 'redis']] as const) {
    const res = await callWithDead(dead, '/v1/health');
    assert.is(res.status, 503, field);
    assert.is(res.body.error.code, 'SERVICE_UNAVAILABLE');
    // This namespace has no data loaded: with Elasticsearch up its missing aliases (index.<resource>) are named too.
    assert.equal(res.body.error.details.filter((d) => !d.field.startsWith('index.')), [{ field, issue: 'unreachable' }]);
  }
});

live('an authenticated call with Redis down: 503 naming Redis, not 500', async () => {
  const res = await callWithDead('redisUrl', '/v1/whoami', { authorization: `Bearer bk_live_${'a'.repeat(40)}` });
  assert.is(res.status, 503);
  assert.is(res.body.error.code, 'SERVICE_UNAVAILABLE');
  assert.match(res.body.error.message, 'Redis is unavailable');
});

live.after(closeAll);
live.run();
