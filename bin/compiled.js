// The CLI compiled to plain JavaScript, for the commands that run long and should carry no
// TypeScript loader: the data commands (ingest, reindex, indices, rollback). Loaded through tsx,
// a process also holds the loader's own thread, its transpile cache and every module's source
// map (about 30 MB of a load's peak RSS, and a slower start).
//
// The bundle is built from cli/index.ts by esbuild on first use and kept under
// node_modules/.cache/bintel/cli: current.json lists every source file it was built from with its
// size and mtime, and any change to one (an edit, a checkout) rebuilds it before it runs, so a
// stale bundle never runs. Each module keeps its own `import.meta.url` (its source file's), so
// files read relative to a module (CHANGELOG.md, layouts.json) resolve as they do under tsx.
// BINTEL_CLI_COMPILED=0 turns it off (every command through tsx).
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'bintel', 'cli');
/** Names the build in use and what it was built from: `{ dir, node, inputs: { file: "size:mtime" } }`. */
const CURRENT = join(CACHE, 'current.json');
/** Builds other than the current one are deleted once this old (a process may still load chunks from one). */
const KEEP_OLD_MS = 60 * 60_000;

const signature = async (file) => {
  const s = await stat(join(ROOT, file));
  return `${s.size}:${s.mtimeMs}`;
};

/** The current build when every file it was built from is as it was then; else null. */
async function currentBuild() {
  let current;
  try {
    current = JSON.parse(await readFile(CURRENT, 'utf8'));
  } catch {
    return null;
  }
  if (current.node !== process.version) return null;
  const same = await Promise.all(Object.entries(current.inputs).map(([file, sig]) => signature(file).then((s) => s === sig, () => false)));
  return same.every(Boolean) ? current : null;
}

/** Every module's `import.meta.url` becomes its source file's URL. */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/**
 * Builds into a directory of its own and then points current.json at it (written beside and
 * renamed: atomic). A build is never changed once written, so a process that started on it keeps
 * loading its chunks whatever other processes build meanwhile.
 */
async function build() {
  const { build: esbuild } = await import('esbuild');
  const dir = `b${Date.now().toString(36)}-${process.pid}`;
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: ['cli/index.ts'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    outdir: join(CACHE, dir),
    metafile: true,
    logLevel: 'silent',
    plugins: [keepModuleUrls],
  });
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs), 'bin/compiled.js', 'package-lock.json']) inputs[file] = await signature(file);
  const current = { dir, node: process.version, inputs };
  const tmp = `${CURRENT}.${process.pid}`;
  await writeFile(tmp, JSON.stringify(current));
  await rename(tmp, CURRENT);
  for (const old of await readdir(CACHE)) {
    if (old === dir || !/^b[0-9a-z]+-\d+$/.test(old)) continue;
    const s = await stat(join(CACHE, old)).catch(() => null);
    if (s && Date.now() - s.mtimeMs > KEEP_OLD_MS) await rm(join(CACHE, old), { recursive: true, force: true });
  }
  return current;
}

/**
 * The URL of the compiled CLI's entry, built first when missing or stale; null when it cannot be
 * built (the caller runs the TypeScript sources instead).
 */
export async function compiledCli() {
  if (process.env.BINTEL_CLI_COMPILED === '0') return null;
  try {
    const current = (await currentBuild()) ?? (await build());
    return pathToFileURL(join(CACHE, current.dir, 'index.js')).href;
  } catch {
    return null;
  }
}
