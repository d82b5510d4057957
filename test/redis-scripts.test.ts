/**
 * The script registry of the Redis adapter (defineScript, core/adapters/redis.ts), on a
 * redis-server this suite starts (never the shared one: SCRIPT FLUSH empties a server's whole
 * script cache): a script runs by EVALSHA, a server that lost it (SCRIPT FLUSH, as after a
 * restart) gets it again by EVAL, also in an auto-pipelined burst of first calls, each call run
 * exactly once; a wrong key count is refused before anything is sent; a script's own error is
 * RejectedError, not retried. Every script the server defines compiles, under a unique name.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { createRedis, defineScript, definedScripts, type RedisClient } from '../core/adapters/redis.ts';
import { RejectedError } from '../core/errors.ts';
import { startRedisServer, type RedisServer } from './helpers/redis-server.ts';

const t = suite('redis script registry');
let server: RedisServer | null = null;
let redis: RedisClient;
let admin: Redis;
/** Commands the client sent, by name (createRedis `observe`), and the errors it was told of. */
let sent = new Map<string, number>();
let failed = 0;

/** KEYS: a counter. ARGV: a word. Counts the run and answers {count, word, the word's length}. */
const ECHO = defineScript<[count: number, word: string, length: number], [word: string]>({
  name: 'test:registry-echo',
  keys: 1,
  lua: `
local n = redis.call('INCR', KEYS[1])
return {n, ARGV[1], string.len(ARGV[1])}
`,
});

/** Any number of keys: sets each to its ARGV of the same place, answers how many. */
const SET_ALL = defineScript<number, string[]>({
  name: 'test:registry-set-all',
  keys: 'variadic',
  lua: `
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[i]) end
return #KEYS
`,
});

const RAISE = defineScript<never, []>({ name: 'test:registry-raise', keys: 1, lua: "return redis.error_reply('BINTELTEST raised on purpose')" });

const count = (name: string): number => sent.get(name) ?? 0;

t.before(async () => {
  server = await startRedisServer();
  admin = new Redis({ port: server.port, lazyConnect: true, maxRetriesPerRequest: 0 });
  await admin.connect();
  redis = createRedis(
    { redisUrl: server.url },
    {
      autoPipelining: true,
      observe: (command, _ms, err) => {
        sent.set(command, count(command) + 1);
        if (err) failed++;
      },
    },
  );
  await redis.connect();
});
t.after(async () => {
  redis?.disconnect();
  admin?.disconnect();
  await server?.stop();
});
t.before.each(() => {
  sent = new Map();
  failed = 0;
});

t('a script runs by its SHA; after SCRIPT FLUSH it is loaded again by EVAL, once, and runs once', async () => {
  await admin.script('FLUSH');
  assert.equal(await ECHO.run(redis, ['one'], ['hello']), [1, 'hello', 5]);
  assert.equal([count('evalsha'), count('eval')], [1, 1], 'first call: NOSCRIPT, then EVAL');
  assert.equal(await admin.script('EXISTS', ECHO.sha), [1], 'EVAL cached it under its SHA');
  assert.equal(await ECHO.run(redis, ['one'], ['again']), [2, 'again', 5]);
  assert.equal([count('evalsha'), count('eval')], [2, 1], 'then EVALSHA alone');
  await admin.script('FLUSH');
  assert.equal(await ECHO.run(redis, ['one'], ['after flush']), [3, 'after flush', 11]);
  assert.equal([count('evalsha'), count('eval')], [3, 2]);
  assert.is(Number(await admin.get('one')), 3, 'each call ran the script exactly once');
  assert.is(failed, 0, 'a NOSCRIPT the registry answers is not reported as a failed command');
});

t('an auto-pipelined burst of first calls after SCRIPT FLUSH: every call answered, each run exactly once', async () => {
  await admin.script('FLUSH');
  const n = 200;
  const replies = await Promise.all(Array.from({ length: n }, (_, i) => ECHO.run(redis, [`burst:${i}`], [`w${i}`])));
  replies.forEach((r, i) => assert.equal(r, [1, `w${i}`, `w${i}`.length]));
  assert.equal([count('evalsha'), count('eval')], [n, n], 'each NOSCRIPT answered by one EVAL');
  const counters = await admin.mget(...Array.from({ length: n }, (_, i) => `burst:${i}`));
  assert.equal(counters, Array.from({ length: n }, () => '1'));
  // Loaded now: a second burst is EVALSHA alone, mixed with plain commands in the same ticks.
  const [again, plain] = await Promise.all([Promise.all(Array.from({ length: n }, (_, i) => ECHO.run(redis, [`burst:${i}`], ['x']))), Promise.all(Array.from({ length: n }, (_, i) => redis.get(`burst:${i}`)))]);
  again.forEach((r) => assert.is(r[0], 2));
  assert.is(plain.length, n);
  assert.equal([count('evalsha'), count('eval')], [2 * n, n]);
  assert.is(failed, 0);
});

t('a variadic script takes any number of keys; a fixed one refuses another count before sending anything', async () => {
  await admin.script('FLUSH');
  assert.is(await SET_ALL.run(redis, ['a', 'b', 'c'], ['1', '2', '3']), 3);
  assert.equal(await admin.mget('a', 'b', 'c'), ['1', '2', '3']);
  assert.is(await SET_ALL.run(redis, ['d'], ['4']), 1);
  const wrong = await ECHO.run(redis, ['one', 'two'], ['x']).catch((e: unknown) => e);
  assert.instance(wrong, Error);
  assert.match((wrong as Error).message, /test:registry-echo takes 1 keys, not 2/);
  assert.is(count('evalsha'), 2, 'the refused call sent nothing');
});

t('a script that raises is RejectedError with its code, sent once, never reloaded', async () => {
  await ECHO.run(redis, ['one'], ['load']);
  await admin.script('LOAD', RAISE.lua);
  sent = new Map();
  const raised = await RAISE.run(redis, ['k'], []).catch((e: unknown) => e);
  assert.instance(raised, RejectedError);
  assert.is((raised as RejectedError).type, 'BINTELTEST');
  assert.equal([count('evalsha'), count('eval')], [1, 0]);
});

t('a name is defined once', () => {
  assert.throws(() => defineScript({ name: 'test:registry-echo', keys: 1, lua: 'return 1' }), /defined twice/);
});

t('every script the server defines compiles on Redis, each under its own name', async () => {
  // What a serving process loads: the services, the routes and the job kinds.
  await import('../server/context.ts');
  await import('../server/app.ts');
  await import('../server/jobs/accept.ts');
  const names = definedScripts()
    .map((s) => s.name)
    .filter((n) => !n.startsWith('test:'));
  const expected = ['credits:debit', 'credits:crawl-debit', 'credits:refund', 'credits:settle', 'crawl:step', 'keys:cas', 'keys:add-child', 'rate:count', 'rate:give-back', 'tags:add', 'tags:org-take', 'tags:remove', 'writing:cas', 'writing:create', 'feedback:file', 'feedback:resolve', 'jobs:accept', 'jobs:save'];
  assert.equal([...names].sort(), [...expected].sort());
  for (const s of definedScripts()) assert.is(await admin.script('LOAD', s.lua), s.sha, `${s.name} compiles`);
});

t.run();
