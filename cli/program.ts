/**
 * The bintel command tree: every command group registered from its own module, in help groups,
 * so that `bintel --help` lists each group on one line. Built without parsing, so tests can walk it.
 */
import type { Command } from 'commander';
import { registerEsCommands } from './es.ts';
import { registerTestCommand } from './test.ts';
import { registerIngestCommands } from './ingest.ts';
import { registerImportCommand } from './import.ts';
import { registerUpCommand } from './up.ts';
import { registerGenerateCommand } from './generate.ts';
import { registerServerCommands } from './serve.ts';
import { registerJwtCommands } from './jwt.ts';
import { registerStateCommands } from './state.ts';
import { registerUsersCommands } from './users.ts';
import { registerKeysCommands } from './keys.ts';
import { registerCreditsCommands } from './credits.ts';
import { registerDocsCommand } from './docs.ts';
import { registerCrmCommands } from './crm.ts';
import { registerReportsCommands } from './reports.ts';
import { registerFlagsCommands } from './flags.ts';
import { rootCommand } from './program-data.ts';

/** Where help and errors go (tests capture them; the CLI writes to stdout and stderr). */
export interface ProgramOutput {
  writeOut?: (s: string) => void;
  writeErr?: (s: string) => void;
}

/** The whole command tree, registered in help groups (commander's helpGroup). */
export function buildProgram(output: ProgramOutput = {}): Command {
  const program = rootCommand();
  // Set before any command is added: subcommands copy it when created.
  if (output.writeOut || output.writeErr) program.configureOutput(output);

  program.commandsGroup('Local services:');
  registerUpCommand(program);
  registerEsCommands(program);
  program.commandsGroup('Data:');
  registerGenerateCommand(program);
  registerIngestCommands(program);
  registerImportCommand(program);
  program.commandsGroup('API server:');
  registerServerCommands(program);
  program.commandsGroup('Access and money:');
  registerKeysCommands(program);
  registerCreditsCommands(program);
  registerJwtCommands(program);
  registerUsersCommands(program);
  program.commandsGroup('Customer data and feedback:');
  registerCrmCommands(program);
  registerReportsCommands(program);
  registerFlagsCommands(program);
  program.commandsGroup('Operations:');
  registerStateCommands(program);
  program.commandsGroup('Development:');
  registerDocsCommand(program);
  registerTestCommand(program);
  program.commandsGroup('');

  // The top level lists a command by its name alone (its own help gives the arguments), one line each.
  program.configureHelp({ subcommandTerm: (cmd) => cmd.name() });
  return program;
}
