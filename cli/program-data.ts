/**
 * The command tree of the data commands alone (cli/ingest.ts: ingest, reindex, indices, rollback),
 * as cli/program.ts registers them, for cli/index.ts to run without loading the other commands.
 */
import { Command } from 'commander';
import { API_VERSION } from '../server/version.ts';
import { registerIngestCommands } from './ingest.ts';

/** The root command both trees start from: name, description, version, help after an error. */
export function rootCommand(): Command {
  return new Command()
    .name('bintel')
    .description('Benefits-intelligence data API: local services, data generation, ingest, indices, keys and the API server')
    .version(API_VERSION)
    .showHelpAfterError();
}

export function buildDataProgram(): Command {
  const program = rootCommand();
  registerIngestCommands(program);
  program.configureHelp({ subcommandTerm: (cmd) => cmd.name() });
  return program;
}
