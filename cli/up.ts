/**
 * `bintel up`: the README's first command. Elasticsearch and Redis up, demo and sandbox data
 * generated and loaded unless already there, then the API served in the foreground.
 */
import type { Command } from 'commander';
import { loadConfig } from '../server/config.ts';
import { createEs } from '../server/adapters/es.ts';
import { ensureEs } from '../server/local/es-local.ts';
import { ensureRedis } from '../server/local/redis-local.ts';
import { DEMO_SIZES, SANDBOX_SIZES, ensureData } from '../ingest/demo.ts';

export function registerUpCommand(program: Command): void {
  program
    .command('up')
    .description('start Elasticsearch and Redis if needed, load demo and sandbox data unless present, serve the API')
    .option('--no-serve', 'stop after the data is loaded')
    .action(async (o: { serve: boolean }) => {
      const config = loadConfig();
      const log = (line: string) => process.stdout.write(`${line}\n`);
      await ensureEs(config, log);
      await ensureRedis(config, log);
      const es = createEs(config);
      for (const sandbox of [false, true]) {
        const r = await ensureData(config, es, { sandbox, sizes: sandbox ? SANDBOX_SIZES : DEMO_SIZES, seed: sandbox ? 7 : 42, log });
        const what = sandbox ? 'sandbox' : 'live';
        log(`${what} data ${r.loaded ? 'loaded' : 'already present'}: ${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      }
      if (!o.serve) return;
      log('the API server is not part of this build yet; data is ready (bintel indices lists it)');
    });
}
