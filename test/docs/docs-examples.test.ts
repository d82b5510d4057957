/**
 * The documentation is tested like the code. Every `curl` line of README.md and docs/*.md sits
 * between `<!-- curl:start -->` and `<!-- curl:end -->` and is sent, read as curl reads it, to a
 * server loaded with generated data: it must be answered 2xx, or the status of a `# NNN` comment
 * on the line after it. Every relative link names a file that exists and, into a markdown file,
 * an anchor one of its headings makes; the README stays a front door (at most 260 lines).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { aliasName } from '../../core/names.ts';
import type { EntityName } from '../../mappings/types.ts';
import { TOUR_COMPANIES } from '../../ingest/demo.ts';
import { loadGenerated, startHarness, withOrg, type DataFiles, type Harness } from '../server/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The documents: the README, then docs/ in name order. */
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const README_MAX_LINES = 260;

// ---------------------------------------------------------------------------------------------
// Reading the documents

/** One line of a document, with whether it is inside a fenced code block. */
interface Line { text: string; n: number; fenced: boolean }

function linesOf(path: string): Line[] {
  let fenced = false;
  return readFileSync(join(ROOT, path), 'utf8').split('\n').map((text, i) => {
    const fence = /^\s*```/.test(text);
    const line = { text, n: i + 1, fenced: fenced || fence };
    if (fence) fenced = !fenced;
    return line;
  });
}

/** A curl command of a document: where it is, its text (continuations joined), and the status it shows. */
export interface CurlExample { file: string; line: number; command: string; checked: boolean; expect?: number }

/** Every curl command in the fenced blocks of `path`, marked with whether a curl:start/end pair encloses it. */
export function curlExamples(path: string): CurlExample[] {
  const lines = linesOf(path);
  const out: CurlExample[] = [];
  let inMarkers = false;
  for (let i = 0; i < lines.length; i++) {
    const { text, n, fenced } = lines[i];
    if (text.trim() === '<!-- curl:start -->') {
      assert.not.ok(inMarkers, `${path}:${n}: curl:start inside another`);
      inMarkers = true;
    } else if (text.trim() === '<!-- curl:end -->') {
      assert.ok(inMarkers, `${path}:${n}: curl:end without a start`);
      inMarkers = false;
    }
    if (!fenced || !/^\s*curl\s/.test(text)) continue;
    let command = text;
    // A line continues after a trailing backslash, or inside an open quote (a JSON body over lines).
    for (;;) {
      if (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i].text.trim()}`;
      else if (openQuote(command) && i + 1 < lines.length) command = `${command}\n${lines[++i].text}`;
      else break;
    }
    const status = /^\s*#\s*(\d{3})\b/.exec(lines[i + 1]?.text ?? '');
    out.push({ file: path, line: n, command, checked: inMarkers, expect: status ? Number(status[1]) : undefined });
  }
  assert.not.ok(inMarkers, `${path}: curl:start without an end`);
  return out;
}

/** Whether a shell line ends inside a quote. */
function openQuote(line: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === null && c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return false;
    if (quote === '"' && c === '\\') i++;
    else if (quote === null && (c === "'" || c === '"')) quote = c;
    else if (c === quote) quote = null;
  }
  return quote !== null;
}

/** Shell words of one command line: quotes, `$VAR` and `${VAR}` expansion; stops at an unquoted `#` (a comment), `|`, `;`, `&`, `<` or `>`. */
export function shellWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const expand = (s: string, i: number): [string, number] => {
    const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(s.slice(i));
    if (!m) return ['$', i + 1];
    const name = m[1] ?? m[2];
    if (env[name] === undefined) throw new Error(`$${name} is not set`);
    return [env[name], i + m[0].length];
  };
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let quoted = '';
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) {
          quoted += line[i + 1];
          i += 2;
        } else if (line[i] === '$') {
          const [value, next] = expand(line, i);
          quoted += value;
          i = next;
        } else {
          quoted += line[i++];
        }
      }
      if (line[i] !== '"') throw new Error(`unterminated " in ${line}`);
      word = (word ?? '') + quoted;
      i++;
    } else if (c === '$') {
      const [value, next] = expand(line, i);
      word = (word ?? '') + value;
      i = next;
    } else if ('|;&<>'.includes(c) || (c === '#' && word === null)) {
      break;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** An HTTP request as curl would send it. */
export interface CurlRequest { method: string; path: string; headers: Record<string, string>; body?: string }

const NO_ARG_FLAGS = new Set(['s', 'S', 'O', 'J', 'g', 'i', 'L', 'f']);

/** The request curl would send for these words (`curl` first); an option it does not know is an error, as is a URL pattern curl would expand. */
export function curlRequest(words: string[], origin = 'localhost:3000'): CurlRequest {
  assert.is(words[0], 'curl');
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  let globoff = false;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    const next = () => {
      if (i + 1 >= words.length) throw new Error(`${w} needs a value`);
      return words[++i];
    };
    if (w === '-H' || w === '--header') {
      const h = next();
      const colon = h.indexOf(':');
      headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
    } else if (w === '-d' || w === '--data' || w === '--data-raw') body = next();
    else if (w === '-X' || w === '--request') method = next();
    else if (w === '-o' || w === '--output') next();
    else if (w === '-g' || w === '--globoff') globoff = true;
    else if (['--silent', '--show-error', '--remote-name', '--remote-header-name', '--include', '--location', '--fail'].includes(w)) continue;
    else if (/^-[A-Za-z]+$/.test(w) && [...w.slice(1)].every((f) => NO_ARG_FLAGS.has(f))) globoff ||= w.includes('g');
    else if (w.startsWith('-')) throw new Error(`curl option ${w} is not one this test reads`);
    else if (url === undefined) url = w;
    else throw new Error(`a second URL: ${w}`);
  }
  if (url === undefined) throw new Error('no URL');
  if (!globoff && /[[\]{}]/.test(url)) throw new Error(`curl reads [ ] { } in ${url} as a URL pattern: add -g`);
  const hostless = url.replace(/^https?:\/\//, '');
  if (!hostless.startsWith(`${origin}/`)) throw new Error(`${url} is not on ${origin}`);
  if (body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), path: hostless.slice(origin.length), headers, body };
}

/** GitHub's anchor of a heading's text. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (code blocks left out; a repeated one gets -1, -2, ...). */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text, fenced } of linesOf(path)) {
    const m = /^#{1,6} (.+)$/.exec(text);
    if (fenced || !m) continue;
    const base = slug(m[1]);
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    out.add(k ? `${base}-${k}` : base);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
const statics = suite('docs: curl lines checked, links resolve, the README a front door');

statics(`the README has at most ${README_MAX_LINES} lines`, () => {
  const n = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
  assert.ok(n <= README_MAX_LINES, `README.md has ${n} lines`);
});

statics('every curl line of the README and docs/ is inside a curl:start/end pair, and every pair holds one', () => {
  const loose: string[] = [];
  for (const path of DOCS) {
    for (const ex of curlExamples(path)) if (!ex.checked) loose.push(`${ex.file}:${ex.line}`);
    const text = readFileSync(join(ROOT, path), 'utf8');
    for (const [, block] of text.matchAll(/^<!-- curl:start -->$([\s\S]*?)^<!-- curl:end -->$/gm)) assert.match(block, /^\s*curl\s/m, `${path}: a curl:start/end pair with no curl line`);
  }
  for (const path of DOCS) {
    for (const { text, n, fenced } of linesOf(path)) {
      // A curl the reader would not find: inside another command, e.g. `X=$(curl ...)`.
      if (fenced && /(^|[\s($;&|`])curl\s/.test(text) && !/^\s*curl\s/.test(text) && !/^\s*#/.test(text)) loose.push(`${path}:${n} (not at the start of its line)`);
    }
  }
  assert.equal(loose, [], 'curl lines no test runs');
  const all = DOCS.flatMap(curlExamples);
  assert.ok(all.length >= 30, `${all.length} curl lines`);
  assert.ok(curlExamples('README.md').length >= 8, 'the README tour has curl lines');
});

statics('every curl line reads as a request on the local API (known options, -g before brackets)', () => {
  const env = { KEY: 'bk_live_x' };
  const bad: string[] = [];
  for (const ex of DOCS.flatMap(curlExamples)) {
    try {
      curlRequest(shellWords(ex.command, env));
    } catch (err) {
      bad.push(`${ex.file}:${ex.line}: ${(err as Error).message}`);
    }
  }
  assert.equal(bad, []);
});

statics('the curl reader reads as curl does', () => {
  const env = { KEY: 'k1' };
  const words = shellWords(`curl -s -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"a": "$KEY"}' localhost:3000/v1/tags   # note`, env);
  assert.equal(words, ['curl', '-s', '-H', 'Authorization: Bearer k1', '-H', 'content-type: application/json', '-d', '{"a": "$KEY"}', 'localhost:3000/v1/tags']);
  assert.equal(curlRequest(words), { method: 'POST', path: '/v1/tags', headers: { authorization: 'Bearer k1', 'content-type': 'application/json' }, body: '{"a": "$KEY"}' });
  assert.equal(curlRequest(shellWords('curl -s -X DELETE localhost:3000/v1/x', env)).method, 'DELETE');
  assert.equal(curlRequest(shellWords("curl -d 'x=1' localhost:3000/v1/x", env)).headers, { 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(shellWords('curl -s localhost:3000/v1/openapi.json | head -c 300', env), ['curl', '-s', 'localhost:3000/v1/openapi.json']);
  assert.throws(() => curlRequest(shellWords('curl -s "localhost:3000/v1/companies?cf[x]=1"', env)), /add -g/);
  assert.is(curlRequest(shellWords('curl -sg "localhost:3000/v1/companies?cf[x]=1"', env)).path, '/v1/companies?cf[x]=1');
  assert.throws(() => curlRequest(shellWords('curl --compressed localhost:3000/v1/x', env)), /not one this test reads/);
  // Unquoted, a placeholder is a shell redirection: the URL ends at its `<`.
  assert.equal(shellWords('curl localhost:3000/v1/exports/<export_id>', env), ['curl', 'localhost:3000/v1/exports/']);
  assert.throws(() => shellWords('curl -H "Authorization: Bearer $NOPE" localhost:3000/v1/x', env), /\$NOPE is not set/);
});

statics('every relative link names a file that exists, and an anchor its headings make', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const path of DOCS) {
    for (const { text, n, fenced } of linesOf(path)) {
      if (fenced) continue;
      for (const [, target] of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file ? join(dirname(join(ROOT, path)), file) : join(ROOT, path);
        const where = `${path}:${n} → ${target}`;
        checked++;
        if (!existsSync(resolved)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(relative(ROOT, resolved)).has(anchor)) broken.push(`${where}: no such heading`);
      }
    }
  }
  assert.equal(broken, []);
  assert.ok(checked > 50, `only ${checked} links found`);
});

statics('slugs are GitHub\'s', () => {
  assert.is(slug("Elasticsearch's cost per document"), 'elasticsearchs-cost-per-document');
  assert.is(slug('Paid jobs: one mechanism for async exports and writing jobs'), 'paid-jobs-one-mechanism-for-async-exports-and-writing-jobs');
  assert.is(slug('Health, deadlines, faults'), 'health-deadlines-faults');
  assert.is(slug('Search quality at 1M'), 'search-quality-at-1m');
});

statics.run();

// ---------------------------------------------------------------------------------------------
const live = suite('docs: every curl line answered by a server with generated data');
const org = `docs-${randomUUID().slice(0, 8)}`;
let h: Harness;
let data: DataFiles | undefined;
let secret = '';
const values: Record<string, string> = {};
/** Ids answered by one call and used by a later one of the same document, by their prefix. */
const CAPTURED: Record<string, string> = { key_: 'key_id', wj_: 'job_id', exp_: 'export_id', rpt_: 'report_id', flg_: 'flag_id' };

type Row = Record<string, unknown>;

async function rows(entity: EntityName, query: Row, size: number, source: string[]): Promise<Row[]> {
  const res = await h.running.services.es.search({ index: aliasName(h.config.namespace, entity), query, size, sort: [{ id: 'asc' }], _source: source });
  return res.hits.hits.map((x) => x._source as Row);
}

live.before(async () => {
  h = await startHarness({ BINTEL_CRAWL_THRESHOLD: '1000', BINTEL_RATE_LIMIT_PER_MIN: '100000' });
  // The demo data's names of the tour (ingest/demo.ts TOUR_COMPANIES) on the first rows, as `npm start` loads them.
  data = await loadGenerated(h, { companies: 1000, personnel: 1000, brokerOffices: 100, brokers: 30, seed: 29, named: TOUR_COMPANIES });
  secret = (await withOrg(h, { org, field_tier: 'advanced', milli: 100_000_000 })).secret;
  const [company, second, third] = await rows('companies', { bool: { filter: [{ exists: { field: 'ein' } }, { exists: { field: 'domain' } }] } }, 3, ['id', 'ein', 'domain']);
  const [person] = await rows('personnel', { term: { lead_type: 'company' } }, 1, ['id']);
  const brokers = await rows('brokers', { match_all: {} }, 100, ['id', 'broker_name']);
  const broker = brokers.find((b) => brokers.filter((o) => o.broker_name === b.broker_name).length === 1);
  assert.ok(company && second && third && person && broker, 'the generated data has what the examples name');
  Object.assign(values, {
    company_id: company.id, company_id_2: second.id, company_id_3: third.id, ein: company.ein, domain: company.domain,
    person_id: person.id, broker_id: broker.id, broker_name: broker.broker_name,
  });
});
live('the README tour: its typo\'d search finds the company it names at rank 1, and its autocomplete suggests it first', async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const search = /companies\?search=([^&"\s]+)/.exec(readme)?.[1];
  const typed = /companies\/autocomplete\?query=([^&"\s]+)/.exec(readme)?.[1];
  assert.ok(search && typed, 'the tour has a search and an autocomplete');
  const [named] = TOUR_COMPANIES;
  assert.ok(readme.includes(named.name), `the tour names ${named.name}`);
  assert.is.not(decodeURIComponent(search!).toLowerCase(), named.base.toLowerCase(), 'the search is typed with a typo');
  const res = await h.call('GET', `/v1/companies?search=${search}&page_size=5`, { secret });
  assert.is(res.status, 200);
  assert.is(res.body.data[0]?.company_name, named.name, JSON.stringify(res.body.data.map((r: Row) => r.company_name)));
  const ac = await h.call('GET', `/v1/companies/autocomplete?query=${typed}&limit=5`, { secret });
  assert.is(ac.body.data[0]?.value, named.name, JSON.stringify(ac.body.data));
});

live.after(async () => {
  await h.close();
  await data?.cleanup();
});

for (const path of DOCS) {
  const examples = curlExamples(path);
  if (examples.length === 0) continue;
  live(`${path}: each of its ${examples.length} curl lines is answered as shown`, async () => {
    const failures: string[] = [];
    for (const ex of examples) {
      const where = `${ex.file}:${ex.line}`;
      let req: CurlRequest;
      try {
        const words = shellWords(ex.command, { KEY: secret });
        req = curlRequest(words.map((w, i) => w.replace(/<([a-z0-9_]+)>/g, (m, name: string) => {
          if (values[name] === undefined) throw new Error(`unknown placeholder ${m}`);
          return words[i].startsWith('localhost:') ? encodeURIComponent(values[name]) : values[name];
        })));
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message}`);
        continue;
      }
      const res = await h.call(req.method, req.path, { headers: req.headers, raw: req.body });
      const ok = ex.expect === undefined ? res.status >= 200 && res.status < 300 : res.status === ex.expect;
      if (!ok) failures.push(`${where}: ${req.method} ${req.path} → ${res.status} ${JSON.stringify(res.body?.error ?? '')}`);
      const id: unknown = res.body?.data?.id;
      const prefix = typeof id === 'string' ? Object.keys(CAPTURED).find((p) => id.startsWith(p)) : undefined;
      if (prefix) values[CAPTURED[prefix]] = id as string;
    }
    assert.equal(failures, []);
  });
}

live.run();
