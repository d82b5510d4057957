/**
 * /v1/docs in Debian's chromium (playwright-core): the page renders the operations of every
 * resource from /v1/openapi.json, and no request leaves the machine (any request to a host other
 * than 127.0.0.1 is aborted and counted; the count must be zero).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { ENTITIES } from '../../mappings/index.ts';
import { startHarness, type Harness } from './harness.ts';

const t = suite('docs-browser');
const CHROMIUM = '/usr/bin/chromium';
let h: Harness;
let browser: Browser;

t.before(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  h = await startHarness();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'] });
});
t.after(async () => {
  await browser?.close();
  await h?.close();
});

t('the operations of every resource render, with no request leaving the machine', async () => {
  const page = await browser.newPage();
  const outside: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  await page.goto(`${h.url}/v1/docs`);
  await page.waitForSelector('.opblock-tag-section', { timeout: 30_000 });
  const text = await page.locator('#swagger-ui').innerText();
  assert.match(text, /1\.0\.0-internal-phase-1/);
  for (const def of ENTITIES) {
    const section = page.locator(`.opblock-tag-section:has(h3[data-tag="${def.name}"])`);
    assert.is(await section.count(), 1, `a section for ${def.name}`);
    const paths = await section.locator('.opblock-summary-path').allInnerTexts();
    const flat = paths.map((p) => p.replace(/\u200b/g, '').trim());
    for (const path of [`/v1/${def.name}`, `/v1/${def.name}/{id}`, `/v1/${def.name}/export.csv`]) assert.ok(flat.includes(path), `${path} rendered (${flat.join(', ')})`);
  }
  assert.equal(outside, [], 'requests to other hosts');
  await page.close();
});

t.run();
