/**
 * A local single-node Elasticsearch for development, tests, CI and new users: the runnable
 * distribution Elastic publishes for integration tests on Maven Central (no bundled JDK),
 * fetched once and cached under BINTEL_HOME, run as an unprivileged user when we are root.
 * Never a mock: if it cannot be had, the exact error is raised.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { createEs, esHealth, waitForEs, type EsHealth } from '../adapters/es.ts';

const GROUP = 'org/elasticsearch/distribution/integ-test-zip/elasticsearch';
const ES_USER = 'bintel-es';
type Log = (line: string) => void;

export interface EsPaths {
  root: string;
  zip: string;
  install: string;
  data: string;
  logs: string;
  pidFile: string;
  stdout: string;
}

export function esPaths(config: Config): EsPaths {
  const root = join(config.home, 'es');
  return {
    root,
    zip: join(root, 'dist', `elasticsearch-${config.esVersion}.zip`),
    install: join(root, `elasticsearch-${config.esVersion}`),
    data: join(root, 'data'),
    logs: join(root, 'logs'),
    pidFile: join(root, 'elasticsearch.pid'),
    stdout: join(root, 'logs', 'stdout.log'),
  };
}

const onPath = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-2000)}`);
}

async function sha1(path: string): Promise<string> {
  const h = createHash('sha1');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** The distribution zip: from the Maven cache (via mvn) or Maven Central over HTTPS, SHA-1 checked. */
async function fetchDist(config: Config, p: EsPaths, log: Log): Promise<void> {
  if (existsSync(p.zip)) return;
  await mkdir(dirname(p.zip), { recursive: true });
  const v = config.esVersion;
  const m2 = join(process.env.HOME || homedir(), '.m2', 'repository', GROUP, v, `elasticsearch-${v}.zip`);
  if (!existsSync(m2) && onPath('mvn')) {
    log(`fetching Elasticsearch ${v} with mvn dependency:get`);
    run('mvn', ['-q', '-B', 'dependency:get', `-Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:${v}:zip`, '-Dtransitive=false'], 'mvn dependency:get');
  }
  if (existsSync(m2)) {
    await writeFile(p.zip, readFileSync(m2));
    return;
  }
  const url = `https://repo1.maven.org/maven2/${GROUP}/${v}/elasticsearch-${v}.zip`;
  log(`downloading ${url}`);
  const [zip, sum] = await Promise.all([fetch(url), fetch(`${url}.sha1`)]);
  if (!zip.ok || !sum.ok) throw new Error(`download of ${url} failed: HTTP ${zip.status} / ${sum.status}`);
  const tmp = `${p.zip}.part`;
  await writeFile(tmp, Buffer.from(await zip.arrayBuffer()));
  const expected = (await sum.text()).trim().split(/\s+/)[0];
  const actual = await sha1(tmp);
  if (actual !== expected) {
    await rm(tmp, { force: true });
    throw new Error(`SHA-1 mismatch for ${url}: expected ${expected}, got ${actual}`);
  }
  await rename(tmp, p.zip);
}

async function unpack(p: EsPaths, log: Log): Promise<void> {
  if (existsSync(join(p.install, 'bin', 'elasticsearch'))) return;
  log(`unpacking into ${p.install}`);
  if (onPath('unzip')) run('unzip', ['-q', '-o', p.zip, '-d', p.root], 'unzip');
  else if (onPath('python3')) run('python3', ['-m', 'zipfile', '-e', p.zip, p.root], 'python3 -m zipfile');
  else throw new Error('cannot unpack the Elasticsearch zip: install unzip (apt-get install unzip)');
  for (const f of await readdir(join(p.install, 'bin'))) spawnSync('chmod', ['+x', join(p.install, 'bin', f)]);
}

/** JAVA_HOME, or the JDK of `java` on PATH; Java 17 or newer. */
function javaHome(): string {
  let home = process.env.ES_JAVA_HOME || process.env.JAVA_HOME;
  if (!home) {
    const which = spawnSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).stdout.trim();
    if (!which) throw new Error('Java 17 or newer is needed to run Elasticsearch and none was found: install a JDK (apt-get install openjdk-17-jre-headless) or set JAVA_HOME');
    home = dirname(dirname(realpathSync(which)));
  }
  const r = spawnSync(join(home, 'bin', 'java'), ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)/.exec(`${r.stderr}${r.stdout}`);
  const major = m ? Number(m[1]) : 0;
  if (major < 17) throw new Error(`Elasticsearch needs Java 17 or newer; ${home} has ${m ? `Java ${major}` : 'no working java'}`);
  return home;
}

async function configure(config: Config, p: EsPaths): Promise<void> {
  await mkdir(p.data, { recursive: true });
  await mkdir(p.logs, { recursive: true });
  const yml = [
    'cluster.name: bintel-local',
    'node.name: bintel-local-1',
    'discovery.type: single-node',
    'network.host: 127.0.0.1',
    `http.port: ${config.esPort}`,
    `transport.port: ${config.esPort + 100}`,
    `path.data: ${p.data}`,
    `path.logs: ${p.logs}`,
    'xpack.security.enabled: false',
    'action.destructive_requires_name: true',
    // Disks here are often nearly full; watermarks would silently block writes.
    'cluster.routing.allocation.disk.threshold_enabled: false',
    '',
  ].join('\n');
  await writeFile(join(p.install, 'config', 'elasticsearch.yml'), yml);
  await mkdir(join(p.install, 'config', 'jvm.options.d'), { recursive: true });
  await writeFile(join(p.install, 'config', 'jvm.options.d', 'heap.options'), `-Xms${config.esHeap}\n-Xmx${config.esHeap}\n`);
}

/** As root: a dedicated unprivileged user owning the install, data and logs. */
async function runAs(p: EsPaths): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const exists = spawnSync('id', ['-u', ES_USER]).status === 0;
  if (!exists) run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ES_USER], `useradd ${ES_USER}`);
  const uid = Number(spawnSync('id', ['-u', ES_USER], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', ES_USER], { encoding: 'utf8' }).stdout.trim());
  run('chown', ['-R', `${uid}:${gid}`, p.install, p.data, p.logs], 'chown');
  // Every parent must be enterable by that user.
  for (let d = p.root; d !== dirname(d); d = dirname(d)) spawnSync('chmod', ['o+x', d]);
  await chown(p.root, uid, gid);
  return { uid, gid };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readPid(p: EsPaths): Promise<number | null> {
  try {
    const pid = Number((await readFile(p.pidFile, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

async function logTail(p: EsPaths): Promise<string> {
  const parts: string[] = [];
  for (const f of [p.stdout, join(p.logs, 'bintel-local.log')]) {
    try {
      parts.push(`--- ${f}\n${(await readFile(f, 'utf8')).split('\n').slice(-25).join('\n')}`);
    } catch {
      /* not written */
    }
  }
  return parts.join('\n');
}

const isLocalUrl = (config: Config) => ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(config.esUrl).hostname);

/**
 * Makes sure Elasticsearch answers at ES_URL: nothing to do when it does; otherwise
 * provisions and starts the local one (only for a local URL), and waits for health.
 */
export async function ensureEs(config: Config, log: Log = () => {}): Promise<{ started: boolean; health: EsHealth }> {
  const es = createEs(config);
  try {
    const health = await esHealth(es);
    if (health) return { started: false, health };
    if (!isLocalUrl(config)) {
      log(`waiting for Elasticsearch at ${config.esUrl}`);
      return { started: false, health: await waitForEs(es, 180_000) };
    }
    const p = esPaths(config);
    await fetchDist(config, p, log);
    await unpack(p, log);
    await configure(config, p);
    const java = javaHome();
    const user = await runAs(p);
    log(`starting Elasticsearch ${config.esVersion} at ${config.esUrl} (data ${p.data}, logs ${p.logs})`);
    const out = openSync(p.stdout, 'a');
    const child = spawn(join(p.install, 'bin', 'elasticsearch'), ['-d', '-p', p.pidFile], {
      cwd: p.install,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: p.root, ES_JAVA_HOME: java, ES_PATH_CONF: join(p.install, 'config') },
      stdio: ['ignore', out, out],
      ...(user ?? {}),
    });
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)).on('error', () => resolve(127)));
    closeSync(out);
    if (code !== 0) throw new Error(`Elasticsearch failed to start (exit ${code})\n${await logTail(p)}`);
    try {
      const health = await waitForEs(es, 180_000);
      log(`Elasticsearch is ${health.status} at ${config.esUrl}`);
      return { started: true, health };
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${await logTail(p)}`);
    }
  } finally {
    await es.close();
  }
}

/** Stops the local Elasticsearch started by `ensureEs` (never one we did not start). */
export async function stopEs(config: Config, log: Log = () => {}): Promise<boolean> {
  const p = esPaths(config);
  const pid = await readPid(p);
  if (!pid) {
    const es = createEs(config);
    const h = await esHealth(es).finally(() => es.close());
    log(h ? `Elasticsearch at ${config.esUrl} was not started by bintel (no pid in ${p.pidFile}); leaving it alone` : 'Elasticsearch is not running');
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  if (pidAlive(pid)) throw new Error(`Elasticsearch (pid ${pid}) did not stop within 60 s`);
  await rm(p.pidFile, { force: true });
  log(`stopped Elasticsearch (pid ${pid})`);
  return true;
}

export interface EsStatus {
  url: string;
  answering: boolean;
  health: EsHealth | null;
  local: { pid: number | null; install: string; data: string; logs: string };
}

export async function esStatus(config: Config): Promise<EsStatus> {
  const es = createEs(config);
  const health = await esHealth(es).catch(() => null).finally(() => es.close());
  const p = esPaths(config);
  return { url: config.esUrl, answering: health !== null, health, local: { pid: await readPid(p), install: p.install, data: p.data, logs: p.logs } };
}
