/**
 * A/B of the API's own CPU per request between two checkouts, on this noisy shared machine:
 * `npm run bench:ab -- --a /path/to/old/checkout [--b .] [--path '/v1/...'] [--rounds 4] [--amount 3000]`.
 *
 * Both servers run at once against the `<ns>-benchq` data of bench:query (load it first with
 * `npm run bench:query -- --load-only`); autocannon sends the same `amount` requests to each in
 * turn, `rounds` times, interleaved, so drift on the machine (merges, page cache, neighbours)
 * falls on both alike. For each it prints the API process's CPU ms per request (from /proc),
 * Elasticsearch's, req/s and p50. The other checkout needs its own node_modules (a symlink to
 * this one's will do).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../core/config.ts';
import { createServices } from '../server/context.ts';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: '.' },
    path: { type: 'string', default: '/v1/personnel?lead_type=company&industries=Offices%20of%20Physicians&employee_bands=11-50,51-200&seniority=C-suite,VP-Director&page_size=25' },
    rounds: { type: 'string', default: '4' },
    amount: { type: 'string', default: '3000' },
  },
});
if (!args.a) throw new Error('--a <checkout> is required (the tree to compare against --b, default this one)');
const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const namespace = `${base.namespace}-benchq`;
const env = { ...process.env, BINTEL_NAMESPACE: namespace, LOG_LEVEL: 'silent', BINTEL_RATE_LIMIT_PER_MIN: '100000000', BINTEL_CRAWL_THRESHOLD: '100000000', BINTEL_DAILY_ROW_CAP: '2000000000' };

/** CPU ms (user + system) a process has used, from /proc. */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function serve(tree: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve(tree, 'bin/bintel.js'), 'serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && ok());
    child.once('exit', (code) => fail(new Error(`${tree}: bintel serve exited with ${code}`)));
  });
  return child;
}

const services = createServices({ ...base, namespace });
const org = `benchab-${randomUUID().slice(0, 8)}`;
const { secret } = await services.keys.createRoot({ org, user: 'bench' });
await services.credits.grant(org, 1_000_000_000_000);
const es = Number(spawnSync('pgrep', ['-f', 'org.elasticsearch.bootstrap.Elasticsearch'], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
const trees = [args.a, args.b];
const servers = await Promise.all(trees.map((t, i) => serve(t, 3900 + i)));
const run = (i: number, amount: number) => autocannon({ url: `http://127.0.0.1:${3900 + i}${args.path}`, headers: { authorization: `Bearer ${secret}` }, connections: 10, amount });
try {
  for (let i = 0; i < trees.length; i++) await run(i, 1000); // warm-up (JIT, caches)
  const out: { api: number; es: number; rps: number; p50: number }[][] = trees.map(() => []);
  for (let r = 0; r < Number(args.rounds); r++) {
    for (let i = 0; i < trees.length; i++) {
      const [a0, e0] = [cpuMs(servers[i].pid!), cpuMs(es)];
      const res = await run(i, Number(args.amount));
      if (res.non2xx || res.errors) throw new Error(`${trees[i]}: ${res.non2xx} non-2xx, ${res.errors} errors`);
      out[i].push({ api: (cpuMs(servers[i].pid!) - a0) / Number(args.amount), es: (cpuMs(es) - e0) / Number(args.amount), rps: res.requests.average, p50: res.latency.p50 });
    }
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  process.stdout.write(`${args.path}\n\n| checkout | API CPU ms/request (per round) | mean | Elasticsearch CPU ms/request | req/s | p50 ms |\n|---|---|---|---|---|---|\n`);
  trees.forEach((t, i) => {
    const o = out[i];
    process.stdout.write(`| ${t} | ${o.map((x) => x.api.toFixed(2)).join(' ')} | ${mean(o.map((x) => x.api)).toFixed(2)} | ${mean(o.map((x) => x.es)).toFixed(2)} | ${mean(o.map((x) => x.rps)).toFixed(0)} | ${mean(o.map((x) => x.p50)).toFixed(1)} |\n`);
  });
} finally {
  for (const s of servers) s.kill('SIGTERM');
  await services.close();
}
