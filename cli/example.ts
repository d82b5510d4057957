/** The example every command's help ends with (its own module: the lean ingest CLI imports it without the server). */
import type { Command } from 'commander';

/** Ends the command's help with examples, one command line each. */
export function example<C extends Command>(cmd: C, ...lines: string[]): C {
  cmd.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
  return cmd;
}
