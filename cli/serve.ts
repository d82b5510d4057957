/**
 * `bintel serve`, `bintel keys ...` and `bintel credits ...`: wiring only.
 */
import cluster from 'node:cluster';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../core/config.ts';
import { serve, startWorkers } from '../server/serve.ts';
import { createServices } from '../server/context.ts';
import { guardProcess } from '../server/process-guard.ts';
import { toCredits, toMilli } from '../server/pricing.ts';
import { ALL_SCOPES } from '../server/scopes.ts';
import { setProfile } from '../server/writing/refs.ts';
import { exportState, importState } from '../server/services/state.ts';
import { JwtService } from '../server/services/jwt.ts';

/** Runs `fn` with connected services, closing them after. */
export async function withServices<T>(fn: (s: ReturnType<typeof createServices>) => Promise<T>): Promise<T> {
  const services = createServices(loadConfig());
  await services.redis.connect();
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

function credits(v: string): number {
  const n = Number(v);
  const m = Number.isFinite(n) ? toMilli(n) : null;
  if (m === null) throw new InvalidArgumentError('expected a number of credits (up to 3 decimals)');
  return m;
}

function scopesArg(v: string): string[] {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length) throw new InvalidArgumentError(`unknown scope(s) ${unknown.join(', ')}; known: ${ALL_SCOPES.join(', ')}`);
  return list;
}

export const print = (json: boolean | undefined, value: unknown, text: string) => process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);

/** Serves the API in the foreground until SIGINT/SIGTERM. */
export async function serveForeground(port?: number, host?: string): Promise<void> {
  const config = loadConfig();
  const services = createServices(config);
  // A rejection nobody handled is logged (error level, with its request id); it never ends the process.
  guardProcess(services.log);
  const running = await serve(config, { port, host: host ?? config.host, services });
  running.services.log.info({ url: running.url, namespace: config.namespace }, 'bintel API listening');
  process.stdout.write(`bintel API listening on ${running.url} (namespace ${config.namespace}); Ctrl-C stops it\n`);
  await untilStopped();
  await running.close();
  // A process of `serve --workers N` keeps its channel to the primary open: leave it once closed.
  if (cluster.isWorker) process.exit(0);
}

/**
 * `serve --workers N`: forks N server processes that share the listening port (node:cluster;
 * each is a whole API, state lives in Redis). SIGINT/SIGTERM is passed on; each finishes its
 * in-flight requests; the primary exits 0 once all have, 1 when one died otherwise. A worker
 * that dies while serving is replaced.
 */
async function servePrimary(workers: number): Promise<void> {
  let stopping = false;
  let failed = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(`bintel: server process ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    failed = failed || code !== 0;
    fork();
  });
  await untilStopped();
  stopping = true;
  const alive = Object.values(cluster.workers ?? {}).filter((w): w is NonNullable<typeof w> => !!w);
  await Promise.all(
    alive.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.once('exit', (code) => {
            failed = failed || (code !== 0 && code !== null);
            resolve();
          });
          w.process.kill('SIGTERM');
        }),
    ),
  );
  process.exitCode = failed ? 1 : 0;
}

/** Until SIGINT or SIGTERM. */
const untilStopped = (): Promise<void> =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

/** Runs background jobs (async exports) in the foreground until SIGINT/SIGTERM, serving nothing. */
export async function workerForeground(concurrency?: number): Promise<void> {
  const base = loadConfig();
  const config = concurrency ? Object.freeze({ ...base, jobConcurrency: concurrency }) : base;
  const services = createServices(config);
  guardProcess(services.log);
  await services.redis.connect();
  const stopWorkers = startWorkers(services);
  services.log.info({ namespace: config.namespace, concurrency: config.jobConcurrency }, 'bintel worker running');
  process.stdout.write(`bintel worker running (namespace ${config.namespace}, ${config.jobConcurrency} jobs at once); Ctrl-C stops it after its running jobs\n`);
  await untilStopped();
  stopWorkers();
  await services.close();
}

export function registerServerCommands(program: Command): void {
  program
    .command('worker')
    .description('run background jobs (async exports, writing jobs) apart from the API; pair with BINTEL_WORKER_IN_PROCESS=0 on servers')
    .option('--concurrency <n>', 'jobs at once (default $BINTEL_JOB_CONCURRENCY or 2)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
      return n;
    })
    .action((o: { concurrency?: number }) => workerForeground(o.concurrency));

  program
    .command('serve')
    .description('serve the HTTP API (PORT, default 3000)')
    .option('--port <n>', 'port (default $PORT or 3000)', (v) => Number(v))
    .option('--host <host>', 'interface to bind (default $BINTEL_HOST or 127.0.0.1)')
    .option('--workers <n>', 'server processes sharing the port (node:cluster); they share all state through Redis', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected a whole number from 1 to 64');
      return n;
    }, 1)
    .action((o: { port?: number; host: string; workers: number }) => (o.workers > 1 && cluster.isPrimary ? servePrimary(o.workers) : serveForeground(o.port, o.host)));

  const jwt = program.command('jwt').description('JWT bearer tokens (BINTEL_JWT_*): mint for operators and tests, revoke');
  jwt
    .command('mint')
    .description('sign a token with BINTEL_JWT_PRIVATE_KEY (RS256/ES256) or BINTEL_JWT_SECRET (HS256); prints the token alone')
    .requiredOption('--org <org>', 'organization (the org claim)')
    .requiredOption('--user <user>', 'user (the sub claim)')
    .option('--scopes <list>', `comma-separated scopes (default all: ${ALL_SCOPES.join(',')})`, scopesArg)
    .option('--tier <tier>', 'basic or advanced', 'advanced')
    .option('--type <type>', 'live or test', 'live')
    .option('--ttl <seconds>', 'lifetime in seconds (at most BINTEL_JWT_MAX_TTL_S)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number of seconds');
      return n;
    }, 3600)
    .option('--json', 'print {token, jti, exp}')
    .action(async (o: { org: string; user: string; scopes?: string[]; tier: string; type: string; ttl: number; json?: boolean }) => {
      if (!['live', 'test'].includes(o.type)) throw new InvalidArgumentError('--type must be live or test');
      if (!['basic', 'advanced'].includes(o.tier)) throw new InvalidArgumentError('--tier must be basic or advanced');
      const minted = await new JwtService(loadConfig().jwt).mint({ org: o.org, user: o.user, scopes: o.scopes ?? [...ALL_SCOPES], tier: o.tier as 'basic' | 'advanced', type: o.type as 'live' | 'test', ttlS: o.ttl });
      print(!!o.json, minted, minted.token);
    });
  jwt
    .command('revoke')
    .description('refuse a token at once in every process, until it would have expired')
    .argument('<jti>')
    .option('--ttl <seconds>', 'how long to keep the revocation (default BINTEL_JWT_MAX_TTL_S, the longest a token lives)', (v) => Number(v))
    .action(async (jti: string, o: { ttl?: number }) => {
      await withServices((s) => s.keys.revokeToken(jti, o.ttl ?? s.config.jwt.maxTtlS));
      process.stdout.write(`revoked token ${jti}\n`);
    });

  const state = program.command('state').description("the namespace's durable Redis state (keys, pools, usage, tags, CRM context, writing records, jobs, feedback) as JSON lines");
  state
    .command('export')
    .description('write every durable key of the namespace (BINTEL_NAMESPACE) to FILE; secrets are never stored, only their hashes')
    .argument('<file>')
    .action(async (file: string) => {
      const n = await withServices((s) => exportState(s.redis, s.config.namespace, file));
      process.stdout.write(`exported ${n} keys to ${file}\n`);
    });
  state
    .command('import')
    .description('write the keys of FILE into the namespace (BINTEL_NAMESPACE), replacing keys of the same name')
    .argument('<file>')
    .action(async (file: string) => {
      const n = await withServices((s) => importState(s.redis, s.config.namespace, file));
      process.stdout.write(`imported ${n} keys from ${file}\n`);
    });

  const users = program.command('users').description("a user's account details (the default sender of writing jobs)");
  users
    .command('set')
    .description('set account details of a user (omitted options are kept; an empty value clears one)')
    .requiredOption('--org <org>', 'organization')
    .requiredOption('--user <user>', 'user (as on their keys)')
    .option('--full-name <name>', 'full name')
    .option('--email <email>', 'email address')
    .option('--signature <text>', 'email signature (use \\n for line breaks)')
    .option('--title <title>', 'job title')
    .option('--company <name>', 'company name')
    .option('--json', 'JSON output')
    .action(async (o: { org: string; user: string; fullName?: string; email?: string; signature?: string; title?: string; company?: string; json?: boolean }) => {
      const fields = { full_name: o.fullName, email: o.email, signature: o.signature?.replace(/\\n/g, '\n'), title: o.title, company_name: o.company };
      const profile = await withServices((s) => setProfile(s, { org: o.org, user: o.user }, fields));
      print(!!o.json, profile, Object.entries(profile).map(([k, v]) => `${k}: ${v}`).join('\n') || '(no details)');
    });
  users
    .command('show')
    .description("a user's account details")
    .requiredOption('--org <org>', 'organization')
    .requiredOption('--user <user>', 'user')
    .option('--json', 'JSON output')
    .action(async (o: { org: string; user: string; json?: boolean }) => {
      const profile = await withServices((s) => setProfile(s, { org: o.org, user: o.user }, {}));
      print(!!o.json, profile, Object.entries(profile).map(([k, v]) => `${k}: ${v}`).join('\n') || '(no details)');
    });

  const keys = program.command('keys').description('issue and manage API keys');
  keys
    .command('create')
    .description('issue a root key; prints its secret once')
    .requiredOption('--org <org>', 'organization id')
    .requiredOption('--user <user>', 'user id the key belongs to')
    .option('--type <type>', 'live or test', 'live')
    .option('--tier <tier>', 'field tier: basic or advanced', 'advanced')
    .option('--scopes <list>', `comma-separated scopes (default all: ${ALL_SCOPES.join(',')})`, scopesArg)
    .option('--name <name>', 'a label')
    .option('--internal', 'an internal token (may use internal-only options)')
    .option('--json', 'print one JSON object')
    .action(async (o: { org: string; user: string; type: string; tier: string; scopes?: string[]; name?: string; internal?: boolean; json?: boolean }) => {
      if (!['live', 'test'].includes(o.type)) throw new InvalidArgumentError('--type must be live or test');
      if (!['basic', 'advanced'].includes(o.tier)) throw new InvalidArgumentError('--tier must be basic or advanced');
      const { key, secret } = await withServices((s) =>
        s.keys.createRoot({ org: o.org, user: o.user, key_type: o.type as 'live' | 'test', field_tier: o.tier as 'basic' | 'advanced', scopes: o.scopes, name: o.name, internal: o.internal }),
      );
      print(!!o.json, { ...key, secret }, `created ${key.key_type} key ${key.id} for ${key.org}/${key.user} (tier ${key.field_tier})\nscopes: ${key.scopes.join(', ')}\nsecret (shown once): ${secret}`);
    });
  keys
    .command('list')
    .description("list an organization's keys with usage")
    .requiredOption('--org <org>', 'organization id')
    .option('--json', 'JSON output')
    .action(async (o: { org: string; json?: boolean }) => {
      const rows = await withServices(async (s) => Promise.all((await s.keys.list(o.org)).map(async (k) => ({ ...k, secret_hash: undefined, usage: await s.credits.usage(k.org, k.id) }))));
      print(!!o.json, rows, rows.map((k) => `${k.id}  ${k.status.padEnd(7)} ${k.key_type} ${k.field_tier.padEnd(8)} ${k.secret_prefix}…  ${k.parent_id ? `child of ${k.parent_id}` : 'root'}  credits ${toCredits(k.usage.credits_milli)} rows ${k.usage.rows} queries ${k.usage.queries}  ${k.name}`).join('\n') || '(no keys)');
    });
  keys
    .command('revoke')
    .description('revoke a key (takes effect at once)')
    .argument('<key_id>')
    .option('--json', 'JSON output')
    .action(async (id: string, o: { json?: boolean }) => {
      const rec = await withServices(async (s) => {
        const k = await s.keys.get(id);
        if (!k) throw new Error(`no key ${id}`);
        return s.keys.revoke(k);
      });
      print(!!o.json, { ...rec, secret_hash: undefined }, `revoked ${rec.id}`);
    });
  keys
    .command('budget')
    .description("set a child key's credit budget (spent from the org's pool; over it: 402 key_budget_exhausted)")
    .argument('<key_id>')
    .option('--total <credits>', 'credits in all', credits)
    .option('--daily <credits>', 'credits per UTC day', credits)
    .option('--clear', 'remove the budget')
    .option('--json', 'JSON output')
    .action(async (id: string, o: { total?: number; daily?: number; clear?: boolean; json?: boolean }) => {
      if (!o.clear && o.total === undefined && o.daily === undefined) throw new InvalidArgumentError('give --total, --daily or --clear');
      const rec = await withServices(async (s) => {
        const k = await s.keys.get(id);
        if (!k) throw new Error(`no key ${id}`);
        return s.keys.setBudget(k, o.clear ? { total: null, daily: null } : { total: o.total === undefined ? null : toCredits(o.total), daily: o.daily === undefined ? null : toCredits(o.daily) });
      });
      print(!!o.json, { ...rec, secret_hash: undefined }, `budget of ${rec.id}: ${rec.budget ? `${rec.budget.total_milli === null ? 'no total' : `${toCredits(rec.budget.total_milli)} in all`}, ${rec.budget.daily_milli === null ? 'no daily limit' : `${toCredits(rec.budget.daily_milli)} a day`}` : 'none'}`);
    });
  keys
    .command('rotate')
    .description('issue a new secret for a key; the old one stops working at once')
    .argument('<key_id>')
    .option('--json', 'JSON output')
    .action(async (id: string, o: { json?: boolean }) => {
      const { key, secret } = await withServices(async (s) => {
        const k = await s.keys.get(id);
        if (!k) throw new Error(`no key ${id}`);
        return s.keys.rotate(k);
      });
      print(!!o.json, { ...key, secret }, `rotated ${key.id}\nnew secret (shown once): ${secret}`);
    });

  const cr = program.command('credits').description("an organization's credit pool");
  cr.command('grant')
    .description('add credits to the pool (negative removes)')
    .requiredOption('--org <org>', 'organization id')
    .requiredOption('--amount <n>', 'credits, up to 3 decimals', credits)
    .option('--json', 'JSON output')
    .action(async (o: { org: string; amount: number; json?: boolean }) => {
      const balance = await withServices((s) => s.credits.grant(o.org, o.amount));
      print(!!o.json, { org: o.org, granted: toCredits(o.amount), balance: toCredits(balance) }, `granted ${toCredits(o.amount)} credits to ${o.org}; balance ${toCredits(balance)}`);
    });
  cr.command('show')
    .description('show the balance')
    .requiredOption('--org <org>', 'organization id')
    .option('--json', 'JSON output')
    .action(async (o: { org: string; json?: boolean }) => {
      const balance = await withServices((s) => s.credits.balance(o.org));
      print(!!o.json, { org: o.org, balance: toCredits(balance) }, `${o.org}: ${toCredits(balance)} credits`);
    });
}
