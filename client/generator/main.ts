/**
 * `npm run client:generate`: builds the OpenAPI document in-process (the same function the
 * server serves GET /v1/openapi.json from) and writes client/src/generated.ts. Wiring only; the
 * work is in generate.ts.
 */
import { writeFile } from 'node:fs/promises';
import { openApiDocument } from '../../server/openapi/document.ts';
import { generateClient } from './generate.ts';

/** Where the generated module lives. */
export const GENERATED_FILE = new URL('../src/generated.ts', import.meta.url);

/** The generated module's source for the document the server serves. */
export const currentClientSource = (): string => generateClient(openApiDocument());

// Run as a script (not when a test imports GENERATED_FILE / currentClientSource).
if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const source = currentClientSource();
  await writeFile(GENERATED_FILE, source);
  console.log(`client/src/generated.ts: ${source.split('\n').length} lines, ${Math.round(source.length / 1024)} KiB`);
}
