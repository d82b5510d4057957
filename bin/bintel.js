#!/usr/bin/env node
// Entry point of the bintel CLI. The data commands, which run long and hold memory for the whole
// load, run compiled to plain JavaScript (bin/compiled.js); every other command, and the data
// commands when the build is off or fails, registers the TypeScript loader and runs cli/index.ts.
import { compiledCli } from './compiled.js';

const COMPILED = new Set(['ingest', 'reindex', 'indices', 'rollback']);
const entry = COMPILED.has(process.argv[2] ?? '') ? await compiledCli() : null;
if (entry) await import(entry);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/index.ts');
}
