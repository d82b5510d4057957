/**
 * The bintel CLI: commander wiring only (the tree is cli/program.ts). The work lives in ingest/ and server/.
 */
import { buildProgram } from './program.ts';

await buildProgram().parseAsync(process.argv).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`bintel: ${message}\n`);
  process.exit(typeof (err as { exitCode?: number })?.exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1);
});
