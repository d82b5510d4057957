/**
 * The API's fixed cost per request against its floor (issue 38): `npm run bench:fixed-cost
 * [-- --a /tmp/perf-base] [--rounds 3 --amount 1500]`, on the `<ns>-benchq` data of bench:query
 * (`npm run bench:query -- --rows 20000 --load-only` is enough: the fixed cost does not grow with
 * the index).
 *
 * Four paths, each against the floor of the same Elasticsearch request (bench/floor-proxy.mjs: a
 * bare Node proxy, no auth, Redis, routing or shaping): a 1-row paid read (a list page of one row, of companies and of personnel,
 * whose rows carry the caller's CRM status and tags),
 * an autocomplete, and a detail (one record by id; its floor is the ids query). For each path
 * autocannon first sends `warmup` requests to each server at 10 connections (3,000: the API's
 * first thousands of requests still run code V8 has not optimized yet); then, for 1 and 10
 * connections, `amount` requests to each in turn, `rounds` times, interleaved, so drift on the shared machine falls on all alike; it prints the API process's CPU
 * ms per request (from /proc) beside the floor's, and their ratio (goal: at most 1.3).
 *
 * Two more floors run in the same rounds: the proxy with the Redis round trips that any API keeping
 * its callers and credits in Redis must make, as bare single commands and nothing else (a DECRBY
 * after the search; a GET before it and the DECRBY), to show what those trips alone cost here.
 *
 * `--a <checkout>`: also runs another checkout's server (its own node_modules, a symlink will do)
 * in the same rounds, for a before/after in one run.
 *
 * Redis round trips per request: each server is run once more with its Redis connections through a
 * counting TCP proxy in this process, and sent each path `--trips` times one at a time; a round trip
 * is a write from the API after Redis last answered on that connection (commands written before the
 * answer came, auto-pipelined or not, ride the same trip). The same count over an idle period as long
 * is taken off (timers of the server). The API runs without its in-process worker.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { loadConfig } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { entity } from '../mappings/index.ts';
import { createServices } from '../server/context.ts';
import { buildAutocomplete, parseAutocomplete } from '../server/read/autocomplete.ts';
import { cpuSeconds } from './proc.ts';
import { spawnSearchFloor, spawnServer } from './server.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({ options: { a: { type: 'string' }, rounds: { type: 'string', default: '3' }, amount: { type: 'string', default: '1500' }, trips: { type: 'string', default: '100' }, warmup: { type: 'string', default: '3000' }, only: { type: 'string' } } });
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const config = Object.freeze({ ...base, namespace: `${base.namespace}-benchq` });
const SERVE_ENV = { BINTEL_WORKER_IN_PROCESS: '0' };
/** bench/floor-proxy.mjs alone, then with its one and two Redis round trips (the debit; the caller's record and the debit). */
const FLOOR_NAMES = ['floor', 'floor + debit trip', 'floor + caller and debit trips'];

/** A TCP proxy to Redis counting round trips (see the module comment). */
async function countingProxy(target: URL): Promise<{ url: string; trips: () => number; close: () => Promise<void> }> {
  let trips = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const redis = createConnection({ host: target.hostname, port: Number(target.port || 6379) });
    let answered = true;
    client.on('data', (d) => {
      if (answered) trips++;
      answered = false;
      redis.write(d);
    });
    redis.on('data', (d) => {
      answered = true;
      client.write(d);
    });
    for (const s of [client, redis]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => (client.destroy(), redis.destroy()));
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as AddressInfo).port;
  return { url: `redis://127.0.0.1:${port}`, trips: () => trips, close: () => new Promise<void>((ok) => (sockets.forEach((s) => s.destroy()), server.close(() => ok()))) };
}

interface Path {
  label: string;
  paths: string[];
  floorBody: unknown;
  index: string;
}

async function main(): Promise<void> {
  const services = createServices(config);
  const companies = aliasName(config.namespace, 'companies');
  const sample = await services.es.search<{ company_name: string; id: string }>({ index: companies, size: 50, query: { term: { state: 'CA' } }, sort: [{ id: 'asc' }], _source: ['company_name', 'id'] }).catch(() => null);
  const docs = (sample?.hits.hits ?? []).map((h) => ({ id: String(h._id), name: String(h._source?.company_name ?? '') })).filter((d) => d.name.length >= 5);
  if (docs.length < 10) throw new Error(`no bench data in ${config.namespace}: run \`npm run bench:query -- --rows 20000 --load-only\` first`);
  const org = `benchf-${randomUUID().slice(0, 8)}`;
  const { secret } = await services.keys.createRoot({ org, user: 'bench', internal: true });
  await services.credits.grant(org, 1_000_000_000_000);
  const headers = { authorization: `Bearer ${secret}` };
  const trees = [...(args.a ? [{ name: `before (${args.a})`, root: resolve(args.a) }] : []), { name: args.a ? 'after (this checkout)' : 'this checkout', root: ROOT }];

  // The floors' bodies: the list's own search (explain=true), the autocomplete builder's, an ids query.
  const listPath = '/v1/companies?states=CA&page_size=1';
  const probe = await spawnServer(config.namespace, { env: SERVE_ENV });
  const ex = (await (await fetch(`${probe.url}${listPath}&explain=true`, { headers })).json()) as { meta: { explain: { index: string; body: unknown } } };
  const personnelEx = (await (await fetch(`${probe.url}/v1/personnel?lead_type=company&page_size=1&explain=true`, { headers })).json()) as typeof ex;
  await probe.close();
  const def = entity('companies');
  const prefixes = docs.map((d) => d.name.slice(0, 4));
  const paths: Path[] = [
    { label: '1-row paid read', paths: [listPath], floorBody: ex.meta.explain.body, index: ex.meta.explain.index },
    // Personnel rows carry crm_status and tags: the caller's CRM context is read before the search.
    { label: '1-row paid read (personnel)', paths: ['/v1/personnel?lead_type=company&page_size=1'], floorBody: personnelEx.meta.explain.body, index: personnelEx.meta.explain.index },
    { label: 'autocomplete', paths: prefixes.map((p) => `/v1/companies/autocomplete?query=${encodeURIComponent(p)}&limit=10`), floorBody: buildAutocomplete(parseAutocomplete(def, { query: prefixes[0], limit: '10' })), index: companies },
    { label: 'detail', paths: docs.map((d) => `/v1/companies/${encodeURIComponent(d.id)}`), floorBody: { query: { ids: { values: [docs[0].id] } }, size: 1 }, index: companies },
  ].filter((p) => !args.only || p.label.includes(args.only));

  // Round trips per request, each checkout through the counting proxy.
  const trips: string[] = [];
  for (const tree of trees) {
    const proxy = await countingProxy(new URL(config.redisUrl));
    const srv = await spawnServer(config.namespace, { root: tree.root, env: { ...SERVE_ENV, REDIS_URL: proxy.url } });
    const row: string[] = [];
    for (const p of paths) {
      const n = Number(args.trips);
      for (let i = 0; i < 5; i++) await fetch(srv.url + p.paths[i % p.paths.length], { headers }).then((r) => r.arrayBuffer());
      const t0 = proxy.trips();
      const w0 = performance.now();
      for (let i = 0; i < n; i++) {
        const r = await fetch(srv.url + p.paths[i % p.paths.length], { headers });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`${p.paths[i % p.paths.length]}: ${r.status}`);
      }
      const used = proxy.trips() - t0;
      const wall = performance.now() - w0;
      const i0 = proxy.trips();
      await new Promise((ok) => setTimeout(ok, wall));
      const idle = proxy.trips() - i0;
      row.push(((used - idle) / n).toFixed(2));
    }
    trips.push(`| ${tree.name} | ${row.join(' | ')} |`);
    await srv.close();
    await proxy.close();
  }
  process.stdout.write(`\nRedis round trips per request (${args.trips} requests one at a time, idle traffic taken off):\n\n| checkout | ${paths.map((p) => p.label).join(' | ')} |\n|---|${paths.map(() => '---|').join('')}\n${trips.join('\n')}\n`);

  // CPU per request against the floor.
  const servers = await Promise.all(trees.map((t) => spawnServer(config.namespace, { root: t.root, env: SERVE_ENV })));
  const lines: string[] = [];
  try {
    for (const p of paths) {
      // The floor, and the floor with the Redis round trips an API keeping callers and credits in Redis cannot skip.
      const floors = await Promise.all([0, 1, 2].map((n) => spawnSearchFloor(config.esUrl, p.index, p.floorBody, { FLOOR_REDIS_TRIPS: String(n), FLOOR_REDIS: config.redisUrl, FLOOR_PREFIX: config.namespace })));
      const targets = [
        ...floors.map((srv, n) => ({ name: FLOOR_NAMES[n], srv, headers: {} as Record<string, string>, paths: ['/'] })),
        ...trees.map((t, i) => ({ name: t.name, srv: servers[i], headers, paths: p.paths })),
      ];
      const run = async (t: (typeof targets)[number], amount: number, connections: number): Promise<number> => {
        let i = 0;
        const c0 = cpuSeconds(t.srv.pid);
        const res = await autocannon({ url: t.srv.url, headers: t.headers, connections, amount, requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: t.paths[i++ % t.paths.length] }) }] as never });
        if (res.non2xx || res.errors) throw new Error(`${t.name} ${p.label}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        return ((cpuSeconds(t.srv.pid) - c0) * 1000) / amount;
      };
      // To steady state, once per path: the API's code takes thousands of requests to be optimized.
      for (const t of targets) await run(t, Number(args.warmup), 10);
      for (const connections of [1, 10]) {
        const cpu: number[][] = targets.map(() => []);
        for (let r = 0; r < Number(args.rounds); r++) for (let i = 0; i < targets.length; i++) cpu[i].push(await run(targets[i], Number(args.amount), connections));
        const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
        const f = mean(cpu[0]);
        lines.push(`| ${p.label} | ${connections} | ${f.toFixed(3)} | ${targets.slice(1).map((t, i) => `${mean(cpu[i + 1]).toFixed(3)} (${(mean(cpu[i + 1]) / f).toFixed(2)}×)`).join(' | ')} |`);
      }
      for (const f of floors) await f.close();
    }
  } finally {
    for (const s of servers) await s.close();
  }
  const columns = [...FLOOR_NAMES.slice(1), ...trees.map((t) => t.name)];
  process.stdout.write(`\nCPU ms per request (mean of ${args.rounds} rounds of ${args.amount}, interleaved), and the ratio to the floor:\n\n| path | connections | floor | ${columns.join(' | ')} |\n|---|---|---|${columns.map(() => '---|').join('')}\n${lines.join('\n')}\n`);
  await services.close();
}

await main();
