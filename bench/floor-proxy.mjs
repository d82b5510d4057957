// The floor of any Node API in front of Elasticsearch: a bare http server that forwards one
// fixed search body to Elasticsearch over a keep-alive undici pool, parses the JSON answer and
// sends it back re-serialized. No routing, auth, Redis or shaping. Used by bench/query.ts.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [esUrl, path, body] = [process.env.FLOOR_ES, process.env.FLOOR_PATH, process.env.FLOOR_BODY];
const pool = new Pool(esUrl, { connections: 32 });
const server = createServer(async (req, res) => {
  const r = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body });
  const json = await r.body.json();
  const out = JSON.stringify({ ok: true, data: json.hits.hits.map((h) => h._source), meta: {} });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(out);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
