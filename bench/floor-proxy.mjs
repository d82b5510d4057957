// The floor of any Node API in front of Elasticsearch: a bare http server that forwards one
// fixed search body to Elasticsearch over a keep-alive undici pool, parses the JSON answer and
// sends it back re-serialized. No routing, auth, Redis or shaping. Used by bench/query.ts and
// bench/fixed-cost.ts.
//
// FLOOR_REDIS_TRIPS=1 or 2 (with FLOOR_REDIS and FLOOR_PREFIX) adds the Redis round trips an API
// that keeps its callers and credits in Redis cannot skip, each a single command and nothing
// else: 2 reads the caller's record before the search (GET), both take the debit after it
// (DECRBY of the rows returned). Used by bench/fixed-cost.ts to show what those trips alone cost.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { Redis } from 'ioredis';

const [esUrl, path, body] = [process.env.FLOOR_ES, process.env.FLOOR_PATH, process.env.FLOOR_BODY];
const trips = Number(process.env.FLOOR_REDIS_TRIPS ?? 0);
const redis = trips ? new Redis(process.env.FLOOR_REDIS) : null;
const [callerKey, creditsKey] = [`${process.env.FLOOR_PREFIX}:floor:caller`, `${process.env.FLOOR_PREFIX}:floor:credits`];
const pool = new Pool(esUrl, { connections: 32 });
const server = createServer(async (req, res) => {
  if (trips >= 2) await redis.get(callerKey);
  const r = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body });
  const json = await r.body.json();
  if (trips >= 1) await redis.decrby(creditsKey, json.hits.hits.length);
  const out = JSON.stringify({ ok: true, data: json.hits.hits.map((h) => h._source), meta: {} });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(out);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', async () => {
  await redis?.del(callerKey, creditsKey);
  redis?.disconnect();
  server.close(() => process.exit(0));
});
