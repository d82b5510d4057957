// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The layers of the code base, checked on every static import: dependencies point one way
 * (cli/ and bench/ → server/, ingest/ and local/ → core/ → mappings/; bin/, the entry, depends
 * on nothing statically, and bench/ may read its process settings), and configuration is
 * the only reader of process.env below the CLI. A lower layer importing a higher one fails here.
 * Inside server/ the floors (SERVER_FLOORS, docs/contributing.md) are checked the same way, and
 * no server module reaches itself through its imports.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const t = suite('layers');
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each top-level folder may import (besides itself and packages); bin/ is the launcher's plain JavaScript (data-command list, malloc tuning). */
const ALLOWED: Record<string, readonly string[]> = {
  mappings: [],
  core: ['mappings'],
  server: ['core', 'mappings'],
  ingest: ['core', 'mappings'],
  local: ['core'],
  cli: ['server', 'ingest', 'local', 'core', 'mappings', 'bin'],
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

/** A relative static import or re-export of a file: its target as a repository-relative path; `typeOnly` for `import type` / `export type`. */
interface Import {
  target: string;
  typeOnly: boolean;
}

/** Relative static imports and re-exports of a file. */
function importsWithKind(file: string, text: string): Import[] {
  const found: Import[] = [];
  // Static `import ... from`, `export ... from` and bare `import '...'`; dynamic import() is a lazy load, allowed.
  const re = /^\s*(?:import|export)\s(type\s)?(?:[^'"]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) found.push({ target: normalize(join(dirname(file), m[2])), typeOnly: m[1] !== undefined });
  return found;
}

/** Relative static imports and re-exports of a file, as repository-relative paths. */
const importsOf = (file: string, text: string): string[] => importsWithKind(file, text).map((i) => i.target);

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

/**
 * The floors inside server/, top first. A room is a folder (`read/`) or a file (`app.ts`); where
 * a folder's file stands on another floor it is named alone (`openapi/document.ts`), and a file
 * belongs to the longest name that holds it. A file imports its own room and the floors below its
 * own, never a room beside it or above it. The one exception is the services bag: every floor is
 * handed `services` (built by context.ts, one floor under serve.ts) and may name its type
 * (`import type { Services } from '.../context.ts'`), never a value of context.ts.
 */
const SERVER_FLOORS: readonly (readonly string[])[] = [
  // The process: builds the services and the app, starts workers, the sweeper and the listener.
  ['serve.ts'],
  // The Koa app (middleware and the route table) and the services bag it is handed.
  ['app.ts', 'context.ts'],
  // The reference docs, the OpenAPI document and its operation table: an assembly of the route declarations.
  ['openapi/reference.ts'],
  ['openapi/document.ts'],
  ['openapi/operations.ts'],
  // One declaration per route: access, parameters, body, responses, handler.
  ['routes/'],
  // Envelope, authentication, CORS.
  ['middleware/'],
  // The documentation's vocabulary: parameters, schemas, shapes and examples the routes declare with.
  ['openapi/'],
  // The job kinds: a kind composes the job machinery with the walkers of read/ and writing/.
  ['jobs/kinds/'],
  // The read pipeline (request, query, fetch, charge, deliver) and the writer (resolve, write, check).
  ['read/', 'writing/'],
  // The job machinery: acceptance, the record store, settlement, the queues, the sweeper.
  ['jobs/'],
  // Who the caller is and what it may call.
  ['access.ts'],
  // Services and stores: everything that holds state in Redis or Elasticsearch, money included.
  ['services/'],
  ['metrics.ts', 'cas.ts', 'validate.ts'],
  // The ground: no import inside server/.
  ['errors.ts', 'scopes.ts', 'pricing.ts', 'index-state.ts', 'changelog.ts', 'version.ts', 'process-guard.ts'],
];

/** The room of a server/ file (`read/`, `jobs/kinds/`, `app.ts`) and its floor (0: top), or null when no floor names it. */
function roomOf(file: string): { room: string; floor: number } | null {
  const inside = relative('server', file).split(sep).join('/');
  let best: { room: string; floor: number } | null = null;
  SERVER_FLOORS.forEach((rooms, floor) => {
    for (const room of rooms) {
      const holds = room.endsWith('/') ? inside.startsWith(room) : inside === room;
      if (holds && (!best || room.length > best.room.length)) best = { room, floor };
    }
  });
  return best;
}

/** Why `file` may not import `imp` inside server/ (null: it may). */
function floorProblem(file: string, imp: Import): string | null {
  if (!imp.target.startsWith(`server${sep}`)) return null;
  const [from, to] = [roomOf(file), roomOf(imp.target)];
  if (!from) return `${file} stands on no floor (SERVER_FLOORS)`;
  if (!to) return `${imp.target} (imported by ${file}) stands on no floor (SERVER_FLOORS)`;
  if (from.room === to.room || to.floor > from.floor) return null;
  if (imp.typeOnly && imp.target === join('server', 'context.ts')) return null;
  return `${file} (${from.room}, floor ${from.floor}) imports ${imp.target} (${to.room}, floor ${to.floor})`;
}

t('every static import inside server/ points down its floors', async () => {
  const problems: string[] = [];
  for (const file of await sourceFiles('server')) {
    const text = await readFile(join(ROOT, file), 'utf8');
    if (!roomOf(file)) problems.push(`${file} stands on no floor (SERVER_FLOORS)`);
    for (const imp of importsWithKind(file, text)) {
      const problem = floorProblem(file, imp);
      if (problem) problems.push(problem);
    }
  }
  assert.equal([...new Set(problems)], []);
});

t('the floor check sees an import that points up or sideways (and lets the services bag type through)', () => {
  const imports = (file: string, text: string) => importsWithKind(join(...file.split('/')), text).map((imp) => floorProblem(join(...file.split('/')), imp));
  assert.equal(imports('server/services/credits.ts', "import { debit } from '../read/charge.ts';"), [`${join('server', 'services', 'credits.ts')} (services/, floor 12) imports ${join('server', 'read', 'charge.ts')} (read/, floor 9)`]);
  assert.equal(imports('server/read/list.ts', "import { x } from '../writing/writer.ts';")[0]?.includes('imports'), true);
  assert.equal(imports('server/jobs/queue.ts', "import { createServices } from '../context.ts';")[0]?.includes('imports'), true);
  assert.equal(imports('server/jobs/queue.ts', "import type { Services } from '../context.ts';"), [null]);
  assert.equal(imports('server/jobs/kinds/export.ts', "import { settle } from '../settle.ts';\nimport { exportCsv } from '../../read/export.ts';"), [null, null]);
  assert.equal(imports('server/openapi/params.ts', "import { sharedDocument } from './document.ts';")[0]?.includes('imports'), true);
});

/** The modules of `graph` that reach themselves through their imports, one list per circle (Tarjan's strongly connected components). */
function circlesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const circle: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        circle.push(w);
        if (w === v) break;
      }
      if (circle.length > 1 || graph.get(v)?.includes(v)) circles.push(circle.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

t('no server/ module reaches itself through its imports (types included, the services bag type aside)', async () => {
  const graph = new Map<string, string[]>();
  for (const file of await sourceFiles('server')) {
    const imports = importsWithKind(file, await readFile(join(ROOT, file), 'utf8'));
    graph.set(file, imports.filter((i) => i.target.startsWith(`server${sep}`) && !(i.typeOnly && i.target === join('server', 'context.ts'))).map((i) => i.target));
  }
  assert.equal(circlesOf(graph), []);
});

t('the circle check sees a circle', () => {
  const graph = new Map([['context', ['queue', 'keys']], ['queue', ['metrics']], ['metrics', ['context']], ['keys', []], ['self', ['self']]]);
  assert.equal(circlesOf(graph), [['context', 'metrics', 'queue'], ['self']]);
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
