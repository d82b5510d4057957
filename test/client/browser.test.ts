/**
 * The client in a browser (Debian's chromium, playwright-core): a page served from one origin
 * loads the built client (tsc output, ES modules) and calls the API on another origin. With the
 * page's origin in BINTEL_CORS_ORIGINS the call succeeds, the headers the client reads
 * (X-Request-Id, RateLimit-*) are visible to it, and an error envelope is readable; with CORS off
 * (the default) the browser refuses the answer and the client throws BintelClientError.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startHarness, withOrg, type Harness } from '../server/harness.ts';

const t = suite('client in a browser');
const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir = '';
let site: Server;
let origin = '';
let allowed: Harness;
let closed: Harness;
let browser: Browser;
let page: Page;

/** A static server of `root`: the page's origin. */
function serveStatic(root: string): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, new URL(req.url ?? '/', 'http://x').pathname));
    if (!path.startsWith(root)) return void res.writeHead(404).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': extname(path) === '.js' ? 'text/javascript' : 'text/html' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

t.before(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  dir = await mkdtemp(join(tmpdir(), 'bintel-client-browser-'));
  const pkg = join(dir, 'pkg');
  await mkdir(pkg);
  for (const name of ['package.json', 'tsconfig.json', 'src']) await cp(join(ROOT, 'client', name), join(pkg, name), { recursive: true });
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--outDir', join(dir, 'www/client')], { cwd: pkg });
  await cp(join(ROOT, 'client/README.md'), join(dir, 'www/index.html'));
  site = await serveStatic(join(dir, 'www'));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  allowed = await startHarness({ BINTEL_CORS_ORIGINS: origin });
  closed = await startHarness();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  page = await browser.newPage();
  await page.goto(`${origin}/index.html`);
});
t.after(async () => {
  await browser?.close();
  await allowed?.close();
  await closed?.close();
  site?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Calls GET /v1/whoami through the client from the page; what the page saw. */
function whoami(api: string, token: string) {
  return page.evaluate(async ({ api, token }) => {
    const { createClient } = await import('/client/index.js' as string);
    try {
      const res = await createClient({ baseUrl: api, token }).getWhoami();
      return { status: res.status, ok: res.ok, requestId: res.requestId, rateLimit: res.rateLimit, org: res.ok ? res.data.key.org : null, code: res.ok ? null : res.error.code, errorRequestId: res.ok ? null : res.error.request_id };
    } catch (err) {
      return { threw: (err as Error).name };
    }
  }, { api, token });
}

t('a listed origin: the call succeeds and the client reads X-Request-Id and RateLimit-*', async () => {
  const { secret, org } = await withOrg(allowed, {});
  const seen = await whoami(allowed.url, secret);
  assert.is(seen.status, 200, JSON.stringify(seen));
  assert.is(seen.org, org);
  assert.match(String(seen.requestId), /^req_/);
  assert.ok(seen.rateLimit && typeof seen.rateLimit.limit === 'number', `RateLimit-* visible: ${JSON.stringify(seen.rateLimit)}`);
});

t('a listed origin: an error envelope is readable, with its request id', async () => {
  const seen = await whoami(allowed.url, 'bk_live_not_a_key');
  assert.is(seen.status, 401, JSON.stringify(seen));
  assert.is(seen.code, 'UNAUTHORIZED');
  assert.is(seen.errorRequestId, seen.requestId);
});

t('CORS off (the default): the browser refuses the answer and the client throws BintelClientError', async () => {
  const { secret } = await withOrg(closed, {});
  const seen = await whoami(closed.url, secret);
  assert.equal(seen, { threw: 'BintelClientError' });
});

t.run();
