#!/usr/bin/env node
/**
 * Where a V8 CPU profile's time goes: `node bench/profile-top.mjs FILE.cpuprofile [--top 25]`.
 * Prints the share of busy time (idle and GC listed apart) by self time per function and by
 * area: bintel's own code per directory, each package in node_modules, Node's internals.
 * `--under a,b,c` adds the inclusive time under each named function (a sample counts once for a
 * name however deep it recurses), and `--per N` prints every figure also as µs per unit of work
 * (N rows loaded, N requests served).
 */
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const topN = Number(opt('--top')) || 25;
const under = (opt('--under') ?? '').split(',').filter(Boolean);
const per = Number(opt('--per')) || 0;
if (!file) {
  process.stderr.write('usage: node bench/profile-top.mjs FILE.cpuprofile [--top N]\n');
  process.exit(1);
}
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (dt[i] ?? 0));

/** The area a frame belongs to: a package, a bintel directory, node internals, or a V8 pseudo-frame. */
function area(cf) {
  const url = cf.url ?? '';
  if (!url) return `(${cf.functionName || 'native'})`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return `pkg ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  const m = /\/(server|core|ingest|mappings|cli|bench|local)\/(?:([^/]+)\/)?/.exec(url);
  return m ? `bintel ${m[1]}${m[2] && !m[2].endsWith('.ts') ? `/${m[2]}` : ''}` : url;
}

let total = 0;
let idle = 0;
const fn = new Map();
const areas = new Map();
for (const [id, us] of self) {
  const n = byId.get(id);
  const cf = n.callFrame;
  total += us;
  if (cf.functionName === '(idle)') {
    idle += us;
    continue;
  }
  const key = `${cf.functionName || '(anonymous)'} ${cf.url ? `${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}` : ''}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  const a = area(cf);
  areas.set(a, (areas.get(a) ?? 0) + us);
}
const busy = total - idle;
const pct = (us) => `${((100 * us) / busy).toFixed(1)}%`.padStart(6) + (per ? `  ${(us / per).toFixed(1).padStart(6)} µs` : '');
process.stdout.write(`profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${((100 * busy) / total).toFixed(0)}%)\n\nby area (share of busy time):\n`);
for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, topN)) process.stdout.write(`${pct(us)}  ${a}\n`);
process.stdout.write(`\ntop functions by self time:\n`);
for (const [k, us] of [...fn].sort((x, y) => y[1] - x[1]).slice(0, topN)) process.stdout.write(`${pct(us)}  ${k}\n`);

if (under.length) {
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map(under.map((u) => [u, 0]));
  for (const [id, us] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at).callFrame.functionName;
      if (inclusive.has(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, inclusive.get(name) + us);
      }
    }
  }
  process.stdout.write(`\ninclusive time under each function:\n`);
  for (const [u, us] of inclusive) process.stdout.write(`${pct(us)}  ${u}\n`);
}
