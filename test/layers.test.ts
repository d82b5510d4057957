// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The layers of the code base, checked on every static import: dependencies point one way
 * (cli/ and bench/ → server/, ingest/ and local/ → core/ → mappings/; bin/, the entry, depends
 * on nothing statically, and bench/ may read its process settings), and configuration is
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
  bench: ['server', 'ingest', 'local', 'core', 'mappings', 'bin'],
  bin: [],
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

/**
 * Files of routes/, read/, jobs/ and writing/ that may hold the Redis client: the stores, and
 * the two that open connections of their own (BullMQ's; the writing-events subscriber, which
 * also publishes). Every other file there reaches Redis through a store or a service.
 */
const REDIS_OWNERS = new Set(['server/jobs/store.ts', 'server/jobs/queue.ts', 'server/writing/store.ts', 'server/writing/settings-store.ts', 'server/writing/waiter.ts'].map(normalize));

/** Source text without comments and the contents of string literals (Lua scripts, messages). */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, (m) => (m.startsWith('/') ? ' ' : m[0] + m[0]));
}

/**
 * How a file uses the Redis client directly: an import of ioredis or of the client's type or
 * constructor, a command on `<x>.redis`, or a command on a variable named `redis` (the client
 * destructured from the services). Handing the client to a script runner is not a command.
 */
function rawRedisUses(text: string): string[] {
  const found: string[] = [];
  if (/^\s*import\b[^;]*?\bfrom\s+['"]ioredis['"]/m.test(text)) found.push('imports ioredis');
  if (/^\s*import\b[^;]*?\b(RedisClient|createRedis)\b[^;]*?\bfrom\s+['"][^'"]*adapters\/redis\.ts['"]/m.test(text)) found.push('imports the Redis client');
  for (const m of codeOf(text).matchAll(/\.\s*redis\s*\.\s*(\w+)|(?<![\w.$])redis\s*\.\s*(\w+)\s*\(/g)) found.push(`redis.${m[1] ?? m[2]}`);
  return found;
}

t('routes, read, jobs and writing reach Redis only through stores and services (no raw client calls)', async () => {
  const found: string[] = [];
  for (const dir of ['server/routes', 'server/read', 'server/jobs', 'server/writing']) {
    for (const file of await sourceFiles(dir)) {
      if (REDIS_OWNERS.has(normalize(file))) continue;
      const uses = rawRedisUses(await readFile(join(ROOT, file), 'utf8'));
      if (uses.length) found.push(`${file}: ${[...new Set(uses)].join(', ')}`);
    }
  }
  assert.equal(found, []);
});

t('the raw Redis check sees a violation (and not a script, a comment or a message)', () => {
  assert.equal(rawRedisUses("const x = await services.redis.get(k);"), ['redis.get']);
  assert.equal(rawRedisUses("const { redis } = services;\nawait redis.zrevrange(k, 0, 9);"), ['redis.zrevrange']);
  assert.equal(rawRedisUses("await this.redis\n  .hgetall(k);"), ['redis.hgetall']);
  assert.equal(rawRedisUses("import { createRedis } from '../../core/adapters/redis.ts';"), ['imports the Redis client']);
  assert.equal(rawRedisUses("import type { RedisClient } from '../../core/adapters/redis.ts';"), ['imports the Redis client']);
  const clean = "import { runScript } from '../../core/adapters/redis.ts';\nconst S = `redis.call('GET', KEYS[1])`;\n// services.redis.get(k) is what a store does\nawait runScript(services.redis, S, [k], []);\nconst msg = 'redis.get failed';";
  assert.equal(rawRedisUses(clean), []);
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
