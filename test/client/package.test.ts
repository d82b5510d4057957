/**
 * The client as another application gets it: client/ built with tsc (JavaScript and .d.ts) and
 * packed with `npm pack` into a temporary directory, installed from the tarball into a temporary
 * project (`npm install --offline`: the package has no dependency), then imported by name from
 * plain JavaScript and from TypeScript and called against a real test server. The TypeScript
 * of client/README.md is typechecked against the installed package (strict, Node types only),
 * compiled and run, and so is the root README's example; a call with a wrongly typed parameter
 * does not typecheck (the types are the package's, not `any`).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { useDataset } from '../helpers/datasets.ts';
import { startHarness, withOrg, type Harness } from '../server/harness.ts';

const t = suite('client package');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
let h: Harness;
let secret = '';
let dir = '';
let app = '';
let tarball = '';

/** Runs a command; resolves to its exit code and output (never rejects on a non-zero exit). */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false', ...env }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

async function must(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const { code, out } = await run(cmd, args, cwd, env);
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}:\n${out}`);
  return out;
}

/** The ```ts blocks of client/README.md, in order, as one module. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(join(ROOT, 'client/README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 2, 'client/README.md has its TypeScript examples');
  return blocks.join('\n');
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022'], strict: true,
    types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')], outDir: 'out', skipLibCheck: false,
  },
};

t.before(async () => {
  h = await startHarness({ ...(await useDataset('standard')).env, BINTEL_CRAWL_THRESHOLD: '1000' });
  ({ secret } = await withOrg(h, { field_tier: 'advanced', milli: 100_000_000 }));
  dir = await mkdtemp(join(tmpdir(), 'bintel-client-pkg-'));
  // A copy of client/, built and packed there: the checkout is not written (two lanes run this at once).
  const pkg = join(dir, 'client');
  await mkdir(pkg);
  for (const name of ['package.json', 'tsconfig.json', 'README.md', 'src']) await cp(join(ROOT, 'client', name), join(pkg, name), { recursive: true });
  await must(process.execPath, [TSC, '-p', 'tsconfig.json'], pkg);
  const packed = JSON.parse(await must('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], pkg)) as { filename: string; files: { path: string }[] }[];
  tarball = join(dir, packed[0].filename);
  app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'some-app', private: true, type: 'module' }));
  await must('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
  await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
});
t.after(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

t('the package: publishable (not private), ESM with types, JavaScript and declarations in dist/', async () => {
  const meta = JSON.parse(await readFile(join(app, 'node_modules/@bintel/client/package.json'), 'utf8'));
  assert.not.ok(meta.private, 'client/package.json must not be private');
  assert.is(meta.types, './dist/index.d.ts');
  assert.equal(meta.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js' });
  assert.equal(meta.dependencies ?? {}, {}, 'no runtime dependency');
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.is(meta.version, root.version);
  const listed = (await must('tar', ['-tzf', tarball], dir)).split('\n');
  for (const file of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/generated.js', 'package/dist/generated.d.ts', 'package/dist/result.d.ts', 'package/README.md']) assert.ok(listed.includes(file), `${file} in the tarball`);
});

t('imported by name from plain JavaScript: a list of real rows, the same as the raw call', async () => {
  await writeFile(join(app, 'plain.mjs'), [
    "import { createClient, API_VERSION } from '@bintel/client';",
    'const bintel = createClient({ baseUrl: process.env.BINTEL_URL, token: process.env.BINTEL_KEY });',
    "const res = await bintel.getCompanies({ query: { sort_by: 'company_name', page_size: 3, fields: ['company_name'] } });",
    'console.log(JSON.stringify({ version: API_VERSION, status: res.status, ids: res.ok ? res.data.map((r) => r.id) : res.error }));',
  ].join('\n'));
  const out = await must(process.execPath, ['plain.mjs'], app, { BINTEL_URL: h.url, BINTEL_KEY: secret });
  const got = JSON.parse(out.trim().split('\n').pop()!);
  const raw = await h.call('GET', '/v1/companies?sort_by=company_name&page_size=3&fields=company_name', { secret });
  assert.is(got.status, 200);
  assert.is(got.ids.length, 3);
  assert.equal(got.ids, raw.body.data.map((r: { id: string }) => r.id));
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.is(got.version, root.version);
});

t("client/README.md's TypeScript typechecks against the installed package (strict), compiles and runs", async () => {
  const example = (await readmeExample()).replace("'http://localhost:3000'", 'process.env.BINTEL_URL!');
  assert.match(example, 'process.env.BINTEL_URL!', 'the example names its server as http://localhost:3000');
  await writeFile(join(app, 'readme.ts'), example);
  const built = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
  assert.is(built.code, 0, built.out);
  const ran = await run(process.execPath, ['out/readme.js'], app, { BINTEL_URL: h.url, BINTEL_KEY: secret });
  assert.is(ran.code, 0, ran.out);
  assert.ok(ran.out.trim().length > 0, 'the example printed rows');
  const csv = await readFile(join(app, 'companies.csv'), 'utf8');
  assert.match(csv.replace(/^\uFEFF/, ''), /^id,/);
});

t("the root README's TypeScript example typechecks against the installed package as '@bintel/client'", async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const code = /The same from TypeScript[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!code) return assert.unreachable('README has the TypeScript example');
  const source = code.replace("'./client/src/index.ts'", "'@bintel/client'");
  assert.ok(source.includes("'@bintel/client'"), 'the example imports the client from ./client/src/index.ts');
  await writeFile(join(app, 'readme.ts'), source);
  const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit'], app);
  assert.is(checked.code, 0, checked.out);
});

t('the types are the package\'s: a wrongly typed parameter or member does not typecheck', async () => {
  await writeFile(join(app, 'readme.ts'), '');
  await writeFile(join(app, 'bad.ts'), [
    "import { createClient } from '@bintel/client';",
    "const bintel = createClient({ baseUrl: 'http://localhost:3000' });",
    "const res = await bintel.getCompanies({ query: { page_size: 'ten' } });",
    'if (res.ok) console.log(res.data.no_such_member);',
  ].join('\n'));
  const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit'], app);
  assert.is.not(checked.code, 0, 'a string page_size typechecked');
  assert.match(checked.out, /bad\.ts.*page_size|bad\.ts[\s\S]*'string' is not assignable to type 'number'/);
});

t.run();
