// The data commands, the one list of them: bin/bintel.js runs these compiled (bin/compiled.js),
// cli/index.ts builds the ingest ones without the rest of the command tree (cli/program-data.ts),
// and the CLI tests check each. Plain JavaScript: bin/ runs before any TypeScript loader.

/** The commands of cli/ingest.ts: built alone, without the modules that load the API server. */
export const INGEST_COMMANDS = Object.freeze(['ingest', 'reindex', 'indices', 'rollback']);

/** Every data command (long loads that hold memory for the whole run): run compiled. `import` is cli/import.ts's. */
export const DATA_COMMANDS = Object.freeze([...INGEST_COMMANDS, 'import']);
