/**
 * The bintel CLI: commander wiring only. The work lives in ingest/ and server/.
 */
import { Command } from 'commander';
import { API_VERSION } from '../server/version.ts';
import { registerEsCommands } from './es.ts';
import { registerTestCommand } from './test.ts';
import { registerIngestCommands } from './ingest.ts';
import { registerImportCommand } from './import.ts';
import { registerUpCommand } from './up.ts';
import { registerGenerateCommand } from './generate.ts';
import { registerServerCommands } from './serve.ts';
import { registerDocsCommand } from './docs.ts';
import { registerCrmCommands } from './crm.ts';
import { registerFeedbackCommands } from './feedback.ts';

const program = new Command();
program
  .name('bintel')
  .description('Benefits-intelligence data API: local services, data generation, ingest, indices, keys and the API server')
  .version(API_VERSION)
  .showHelpAfterError();

registerEsCommands(program);
registerUpCommand(program);
registerGenerateCommand(program);
registerIngestCommands(program);
registerImportCommand(program);
registerServerCommands(program);
registerCrmCommands(program);
registerFeedbackCommands(program);
registerDocsCommand(program);
registerTestCommand(program);

await program.parseAsync(process.argv).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`bintel: ${message}\n`);
  process.exit(typeof (err as { exitCode?: number })?.exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1);
});
