// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The layers of the code base, checked on every static import: dependencies point one way
 * (cli/ and bench/ → server/, ingest/ and local/ → core/ → mappings/), and configuration is
 * the only reader of process.env below the CLI. A lower layer importing a higher one fails here.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const t = suite('layers');
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each top-level folder may import (besides itself and packages). */
const ALLOWED: Record<string, readonly string[]> = {
  mappings: [],
  core: ['mappings'],
  server: ['core', 'mappings'],
  ingest: ['core', 'mappings'],
  local: ['core'],
  cli: ['server', 'ingest', 'local', 'core', 'mappings'],
  bench: ['server', 'ingest', 'local', 'core', 'mappings'],
};

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(ts|mjs|js)$/.test(e.name)) out.push(path);
  }
  return out;
}

/** Relative static imports and re-exports of a file, as repository-relative paths. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  // Static `import ... from`, `export ... from` and bare `import '...'`; dynamic import() is a lazy load, allowed.
  const re = /^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) found.push(normalize(join(dirname(file), m[1])));
  return found;
}

t('every static import points down the layers', async () => {
  const problems: string[] = [];
  for (const layer of Object.keys(ALLOWED)) {
    for (const file of await sourceFiles(layer)) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const target of importsOf(file, text)) {
        const to = relative(ROOT, join(ROOT, target)).split('/')[0];
        if (to !== layer && !ALLOWED[layer].includes(to)) problems.push(`${file} imports ${target}`);
      }
    }
  }
  assert.equal(problems, []);
});

t('only core/config.ts reads process.env below the CLI', async () => {
  const readers: string[] = [];
  for (const layer of ['mappings', 'core', 'server', 'ingest']) {
    for (const file of await sourceFiles(layer)) {
      if (file === join('core', 'config.ts')) continue;
      if (/process\.env\b/.test(await readFile(join(ROOT, file), 'utf8'))) readers.push(file);
    }
  }
  assert.equal(readers, []);
});

t('routes of paid jobs reach job state only through the job layer (server/jobs/), never Redis directly', async () => {
  const found: string[] = [];
  for (const file of ['server/routes/exports.ts', 'server/routes/writing-jobs.ts']) {
    const text = await readFile(join(ROOT, file), 'utf8');
    if (/services\.redis\b|\bredis\.(get|set|mget|eval|call|zadd|zrevrange|del)\(/.test(text)) found.push(file);
  }
  assert.equal(found, []);
});

t('no code outside mappings/ asks for an entity by name', async () => {
  const found: string[] = [];
  for (const layer of ['server', 'ingest', 'cli', 'core']) {
    for (const file of await sourceFiles(layer)) {
      const text = await readFile(join(ROOT, file), 'utf8');
      if (/\.name\s*[!=]==?\s*'(companies|personnel|brokers|broker-offices)'/.test(text)) found.push(file);
    }
  }
  assert.equal(found, []);
});

t('the check sees a violation (a core file importing the server would be reported)', () => {
  const imports = importsOf(join('core', 'x.ts'), "import { serve } from '../server/serve.ts';\nconst later = () => import('../test/runner.ts');\n");
  assert.equal(imports, [join('server', 'serve.ts')]);
});

t.run();
