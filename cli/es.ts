/**
 * `bintel es start|stop|status`: wiring only; the work is in local/es-local.ts.
 */
import type { Command } from 'commander';
import { loadConfig } from '../core/config.ts';
import { ensureEs, esStatus, stopEs, type EsStatus } from '../local/es-local.ts';
import { example } from './shared.ts';

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Human-readable lines of a status. */
function describe(s: EsStatus): string[] {
  const h = s.health;
  const lines = [`url:     ${s.url}`, `health:  ${h ? `${h.status} (${h.number_of_nodes} node(s), cluster ${h.cluster_name})` : 'not answering'}`];
  if (s.local.pid) {
    lines.push(`pid:     ${s.local.pid} (started by bintel)`, `install: ${s.local.install}`, `data:    ${s.local.data}`, `logs:    ${s.local.logs}`);
  } else if (s.answering) {
    lines.push(`local:   not started by bintel (its install would be ${s.local.install})`);
  }
  return lines;
}

/** Healthy means answering and not red. */
const healthy = (s: EsStatus): boolean => s.health !== null && s.health.status !== 'red';

/** Registers `bintel es start|stop|status`. */
export function registerEsCommands(program: Command): void {
  const es = example(program.command('es').summary('start, stop and check the local Elasticsearch').description('the local Elasticsearch at ES_URL (default http://127.0.0.1:9200)'), 'bintel es status');
  example(es.command('start')
    .description('do nothing if Elasticsearch answers at ES_URL; otherwise provision and start a local single-node one')
    .action(async () => {
      const config = loadConfig();
      const r = await ensureEs(config, log);
      if (!r.started) log(`Elasticsearch already answers at ${config.esUrl}; nothing to do`);
      for (const line of describe(await esStatus(config))) log(line);
    }), 'ES_URL=http://127.0.0.1:9200 bintel es start');
  example(es.command('stop')
    .description('stop the local Elasticsearch if bintel started it')
    .action(async () => {
      await stopEs(loadConfig(), log);
    }), 'bintel es stop');
  example(es.command('status')
    .description('where Elasticsearch runs and how healthy it is (exit 1 unless green or yellow)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const s = await esStatus(loadConfig());
      if (o.json) log(JSON.stringify(s, null, 2));
      else for (const line of describe(s)) log(line);
      process.exitCode = healthy(s) ? 0 : 1;
    }), 'bintel es status --json');
}
