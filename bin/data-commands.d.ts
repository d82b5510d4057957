// Types of bin/data-commands.js (plain JavaScript: bin/ runs before any TypeScript loader).
export const INGEST_COMMANDS: readonly string[];
export const DATA_COMMANDS: readonly string[];
