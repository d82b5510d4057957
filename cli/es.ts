/**
 * `bintel es start|stop|status`: wiring only.
 */
import type { Command } from 'commander';
import { loadConfig } from '../server/config.ts';
import { ensureEs, esStatus, stopEs } from '../server/local/es-local.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);

export function registerEsCommands(program: Command): void {
  const es = program.command('es').description(`the local Elasticsearch (ES_URL, default http://127.0.0.1:9200)`);
  es.command('start')
    .description('do nothing if Elasticsearch answers at ES_URL; otherwise provision and start a local single-node one')
    .action(async () => {
      const config = loadConfig();
      const r = await ensureEs(config, log);
      if (!r.started) log(`Elasticsearch already answers at ${config.esUrl} (${r.health.status}); nothing to do`);
      const s = await esStatus(config);
      if (s.local.pid) log(`pid ${s.local.pid}; install ${s.local.install}; data ${s.local.data}; logs ${s.local.logs}`);
    });
  es.command('stop')
    .description('stop the local Elasticsearch started by bintel')
    .action(async () => {
      await stopEs(loadConfig(), log);
    });
  es.command('status')
    .description('where Elasticsearch runs and how healthy it is')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const s = await esStatus(loadConfig());
      if (o.json) log(JSON.stringify(s, null, 2));
      else {
        log(`${s.url}: ${s.health ? `${s.health.status} (${s.health.number_of_nodes} node(s), cluster ${s.health.cluster_name})` : 'not answering'}`);
        log(s.local.pid ? `local: pid ${s.local.pid}, install ${s.local.install}, data ${s.local.data}, logs ${s.local.logs}` : `local: not started by bintel (install dir ${s.local.install})`);
      }
      if (!s.answering) process.exitCode = 1;
    });
}
