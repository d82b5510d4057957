/**
 * `bintel up`: the README's first command (`npm start`). Elasticsearch and Redis up, demo and sandbox data
 * generated and loaded unless already there, a demo organization with credits and fresh demo
 * keys (live and test) printed with a ready curl example, then the API served in the
 * foreground until Ctrl-C.
 */
import type { Command } from 'commander';
import { loadConfig, type Config } from '../core/config.ts';
import { aliasName } from '../core/names.ts';
import { createEs } from '../core/adapters/es.ts';
import { ensureEs } from '../local/es-local.ts';
import { ensureRedis } from '../local/redis-local.ts';
import { createServices } from '../server/context.ts';
import { toCredits } from '../server/pricing.ts';
import { DEMO_SIZES, SANDBOX_SIZES, ensureData } from '../ingest/demo.ts';
import { serveForeground } from './serve.ts';
import { example } from './shared.ts';

export const DEMO_ORG = 'demo';
const DEMO_CREDITS_MILLI = 10_000_000;

/** Tops the demo pool up to 10,000 credits and issues fresh demo keys, revoking the previous ones. */
async function demoKeys(config: Config): Promise<{ live: string; test: string; balance: number }> {
  const services = createServices(config);
  await services.redis.connect();
  try {
    for (const k of await services.keys.list(DEMO_ORG)) if (k.name.startsWith('demo ') && k.status === 'active') await services.keys.revoke(k);
    const balance = await services.credits.balance(DEMO_ORG);
    if (balance < DEMO_CREDITS_MILLI) await services.credits.grant(DEMO_ORG, DEMO_CREDITS_MILLI - balance);
    const live = await services.keys.createRoot({ org: DEMO_ORG, user: 'demo-user', name: 'demo live key', key_type: 'live', field_tier: 'advanced' });
    const test = await services.keys.createRoot({ org: DEMO_ORG, user: 'demo-user', name: 'demo test key', key_type: 'test', field_tier: 'advanced' });
    return { live: live.secret, test: test.secret, balance: await services.credits.balance(DEMO_ORG) };
  } finally {
    await services.close();
  }
}

/** How to stop what `bintel up` runs: the API (Ctrl-C), and Elasticsearch and Redis, which stay up for the next start. */
export function stopHint(o: { serve: boolean; esStarted: boolean; redisStarted: boolean; redisUrl: string }): string {
  const lines = [o.serve ? 'to stop: Ctrl-C stops the API' : 'to stop:'];
  lines.push(`  npx bintel es stop    stops the local Elasticsearch${o.esStarted ? ' (started now; it keeps running for the next start)' : ' (if bintel started it)'}`);
  if (o.redisStarted) {
    const u = new URL(o.redisUrl);
    lines.push(`  redis-cli -h ${u.hostname} -p ${u.port || 6379}${u.password ? ' -a <password>' : ''} shutdown    stops the redis-server started now (its data stays in its append-only file)`);
  }
  return lines.join('\n');
}

export function registerUpCommand(program: Command): void {
  example(program
    .command('up')
    .summary('start services, load demo data, print keys, serve the API')
    .description('start Elasticsearch and Redis if needed, load demo and sandbox data unless present, print demo keys, serve the API')
    .option('--no-serve', 'stop after the data and keys are ready')
    .action(async (o: { serve: boolean }) => {
      const config = loadConfig();
      const log = (line: string) => process.stdout.write(`${line}\n`);
      const esStarted = (await ensureEs(config, log)).started;
      const redisStarted = (await ensureRedis(config, log)).started;
      const es = createEs(config);
      for (const sandbox of [false, true]) {
        const r = await ensureData(config, es, { sandbox, sizes: sandbox ? SANDBOX_SIZES : DEMO_SIZES, seed: sandbox ? 7 : 42, log });
        const what = sandbox ? 'sandbox' : 'live';
        log(`${what} data ${r.loaded ? 'loaded' : 'already present'}: ${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      }
      const sample = await es.search({ index: aliasName(config.namespace, 'companies'), size: 1, _source: false });
      const companyId = sample.hits.hits[0]?._id ?? '<id>';
      await es.close();
      const keys = await demoKeys(config);
      const base = `http://127.0.0.1:${config.port}`;
      log(`\ndemo organization "${DEMO_ORG}": ${toCredits(keys.balance)} credits`);
      log(`live key (advanced tier, every scope): ${keys.live}`);
      log(`test key (sandbox data):               ${keys.test}`);
      log(`\ntry:\n  curl -s -H "Authorization: Bearer ${keys.live}" ${base}/v1/whoami\n  curl -s -H "Authorization: Bearer ${keys.live}" "${base}/v1/companies/${companyId}?mode=full"\n  curl -s -H "Authorization: Bearer ${keys.live}" "${base}/v1/companies?search=Acme%20Helthcare&page_size=5"\n`);
      log(stopHint({ serve: o.serve, esStarted, redisStarted, redisUrl: config.redisUrl }));
      if (o.serve) await serveForeground(config.port, config.host);
    }), 'bintel up', 'bintel up --no-serve');
}
