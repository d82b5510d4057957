#!/usr/bin/env node
// Entry point of the bintel CLI. The data commands, which run long and hold memory for the whole
// load, run compiled to plain JavaScript (bin/compiled.js); every other command, and the data
// commands when the build is off or fails, registers the TypeScript loader and runs cli/index.ts.
// The Form 5500 import runs with glibc's large blocks mapped on their own (bin/malloc.js).
import { compiledCli } from './compiled.js';
import { DATA_COMMANDS } from './data-commands.js';
import { rerunWithMallocTuning, wantsMallocTuning } from './malloc.js';

const COMPILED = new Set(DATA_COMMANDS);
if (process.argv[2] === 'import' && wantsMallocTuning()) await rerunWithMallocTuning();
const entry = COMPILED.has(process.argv[2] ?? '') ? await compiledCli() : null;
if (entry) await import(entry);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/index.ts');
}
