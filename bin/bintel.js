#!/usr/bin/env node
// Entry point of the bintel CLI: registers the TypeScript loader, then runs cli/index.ts.
import { register } from 'tsx/esm/api';
register();
await import('../cli/index.ts');
