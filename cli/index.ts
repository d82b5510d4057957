/**
 * The bintel CLI: commander wiring only (the tree is cli/program.ts). The work lives in ingest/ and server/.
 *
 * The data commands of cli/ingest.ts (ingest, reindex, indices, rollback) are built alone, without
 * the rest of the tree: the other command modules load the API server, Redis and the job queue,
 * which took a load's peak RSS from about 150 MB to about 215 MB before its first row.
 */
import type { Command } from 'commander';
import { INGEST_COMMANDS } from '../bin/data-commands.js';

const LEAN = new Set(INGEST_COMMANDS);

async function program(): Promise<Command> {
  if (LEAN.has(process.argv[2] ?? '')) return (await import('./program-data.ts')).buildDataProgram();
  return (await import('./program.ts')).buildProgram();
}

await (await program()).parseAsync(process.argv).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`bintel: ${message}\n`);
  process.exit(typeof (err as { exitCode?: number })?.exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1);
});
