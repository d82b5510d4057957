/**
 * The local Elasticsearch distribution: the runnable zip Elastic publishes on Maven Central
 * for integration tests (org.elasticsearch.distribution.integ-test-zip). It has no bundled
 * JDK and only a few modules, and it is fetched once and cached under `config.home/es`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, realpathSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Config } from '../core/config.ts';
import { onPath, runChecked } from './sys.ts';

const GROUP_PATH = 'org/elasticsearch/distribution/integ-test-zip/elasticsearch';
const GROUP_COORD = 'org.elasticsearch.distribution.integ-test-zip:elasticsearch';
const CENTRAL = 'https://repo1.maven.org/maven2';

/** Where the local Elasticsearch lives; everything is under `config.home/es`. */
export interface EsPaths {
  root: string;
  zip: string;
  install: string;
  data: string;
  logs: string;
  pidFile: string;
  /** Output of the launcher (bin/elasticsearch -d), which reports startup failures. */
  launcherLog: string;
  /** The server log; its name follows cluster.name. */
  serverLog: string;
}

/** Cluster name of the local node; it also names the server log file. */
export const LOCAL_CLUSTER = 'bintel-local';

/** The paths for the configured home and version. */
export function esPaths(config: Pick<Config, 'home' | 'esVersion'>): EsPaths {
  const root = join(config.home, 'es');
  const logs = join(root, 'logs');
  return {
    root,
    zip: join(root, 'dist', `elasticsearch-${config.esVersion}.zip`),
    install: join(root, `elasticsearch-${config.esVersion}`),
    data: join(root, 'data'),
    logs,
    pidFile: join(root, 'elasticsearch.pid'),
    launcherLog: join(logs, 'launcher.log'),
    serverLog: join(logs, `${LOCAL_CLUSTER}.log`),
  };
}

/**
 * The distribution in the local Maven repository (where `mvn dependency:get` puts it), if
 * there. Maven's home is the passwd one, which may differ from $HOME, so both are tried.
 */
function m2Zip(version: string): string | null {
  const homes = [...new Set([homedir(), userInfo().homedir])];
  const candidates = homes.map((h) => join(h, '.m2', 'repository', GROUP_PATH, version, `elasticsearch-${version}.zip`));
  return candidates.find((c) => existsSync(c)) ?? null;
}

/** Asks Maven to fetch the artifact into ~/.m2; returns the error text instead of throwing. */
function mvnGet(version: string): string | null {
  try {
    runChecked('mvn', ['-q', '-B', 'dependency:get', `-Dartifact=${GROUP_COORD}:${version}:zip`, '-Dtransitive=false'], 'mvn dependency:get', {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Streams a URL to a file while hashing it; returns the SHA-1. */
async function download(url: string, dest: string): Promise<string> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url}: HTTP ${res.status} ${res.statusText}`);
  const hash = createHash('sha1');
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), tap, createWriteStream(dest));
  return hash.digest('hex');
}

/** Downloads the zip from Maven Central and checks it against the published `.sha1`. */
async function downloadFromCentral(version: string, dest: string, log: (line: string) => void, repo: string): Promise<void> {
  const url = `${repo}/${GROUP_PATH}/${version}/elasticsearch-${version}.zip`;
  log(`downloading ${url}`);
  const sumRes = await fetch(`${url}.sha1`);
  if (!sumRes.ok) throw new Error(`GET ${url}.sha1: HTTP ${sumRes.status} ${sumRes.statusText}`);
  const expected = (await sumRes.text()).trim().split(/\s+/)[0]?.toLowerCase();
  const part = `${dest}.${process.pid}.part`;
  try {
    const actual = await download(url, part);
    if (actual !== expected) throw new Error(`SHA-1 mismatch for ${url}: published ${expected}, downloaded ${actual}`);
    await rename(part, dest);
  } finally {
    await rm(part, { force: true });
  }
}

/**
 * Makes sure the distribution zip is cached at `paths.zip`: copied from ~/.m2 (fetched there
 * by mvn when it is installed), else downloaded from Maven Central (or `repo`, a mirror with
 * the same layout) and checked against the published SHA-1.
 */
export async function fetchDist(version: string, paths: EsPaths, log: (line: string) => void, repo = CENTRAL): Promise<void> {
  if (existsSync(paths.zip)) return;
  await mkdir(dirname(paths.zip), { recursive: true });
  let mvnError: string | null = null;
  if (!m2Zip(version) && onPath('mvn')) {
    log(`fetching Elasticsearch ${version} with mvn dependency:get`);
    mvnError = mvnGet(version);
  }
  const m2 = m2Zip(version);
  if (m2) {
    // Copy through a temporary name of this process's own, so neither an interrupted copy nor
    // two concurrent starts (a test run and `es start`) ever leave a partial zip in the cache.
    const part = `${paths.zip}.${process.pid}.part`;
    await copyFile(m2, part);
    await rename(part, paths.zip);
    return;
  }
  if (mvnError) log(`mvn could not fetch it (${mvnError}); trying Maven Central over HTTPS`);
  try {
    await downloadFromCentral(version, paths.zip, log, repo);
  } catch (err) {
    const why = (err as Error).message;
    throw new Error(`could not get Elasticsearch ${version}: ${why}${mvnError ? `; mvn: ${mvnError}` : ''}`);
  }
}

/** Extracts a zip into a directory with the first tool available. */
function extract(zip: string, into: string): void {
  if (onPath('unzip')) runChecked('unzip', ['-q', '-o', zip, '-d', into], 'unzip');
  else if (onPath('jar')) runChecked('jar', ['xf', zip], 'jar xf', { cwd: into });
  else if (onPath('python3')) runChecked('python3', ['-m', 'zipfile', '-e', zip, into], 'python3 -m zipfile');
  else throw new Error('cannot unpack the Elasticsearch zip: install unzip (apt-get install unzip), a JDK (jar) or python3');
}

/**
 * Unpacks the cached zip into `paths.install`, through a scratch directory so a half-unpacked
 * tree is never mistaken for an install.
 */
export async function unpackDist(paths: EsPaths, log: (line: string) => void): Promise<void> {
  if (existsSync(join(paths.install, 'bin', 'elasticsearch'))) return;
  log(`unpacking ${paths.zip} into ${paths.install}`);
  const scratch = join(paths.root, `.unpack-${process.pid}`);
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  try {
    try {
      extract(paths.zip, scratch);
    } catch (err) {
      // A damaged cached zip is dropped so the next start fetches it again.
      await rm(paths.zip, { force: true });
      throw err;
    }
    const [top] = await readdir(scratch);
    if (!top) throw new Error(`${paths.zip} is empty`);
    await rm(paths.install, { recursive: true, force: true });
    await rename(join(scratch, top), paths.install);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  // jar and python's zipfile drop the executable bits.
  for (const f of await readdir(join(paths.install, 'bin'))) await chmod(join(paths.install, 'bin', f), 0o755);
}

/** The major version `java -version` reports, or 0 when it does not run. */
function javaMajor(javaBin: string): number {
  const r = spawnSync(javaBin, ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)(?:\.(\d+))?/.exec(`${r.stderr ?? ''}${r.stdout ?? ''}`);
  if (!m) return 0;
  // Java 8 and older report "1.8.0_x".
  return m[1] === '1' ? Number(m[2] ?? 0) : Number(m[1]);
}

/**
 * The JDK to run Elasticsearch with: ES_JAVA_HOME or JAVA_HOME, else the one behind `java`
 * on PATH. Throws unless it is Java 17 or newer (this distribution bundles no JDK).
 */
export function findJavaHome(env: NodeJS.ProcessEnv): string {
  let home = env.ES_JAVA_HOME || env.JAVA_HOME;
  if (!home) {
    const which = spawnSync('sh', ['-c', 'command -v java'], { encoding: 'utf8', env }).stdout.trim();
    if (!which) {
      throw new Error('Elasticsearch needs Java 17 or newer and none was found: install a JDK (apt-get install openjdk-17-jdk-headless) or set JAVA_HOME');
    }
    home = dirname(dirname(realpathSync(which)));
  }
  const major = javaMajor(join(home, 'bin', 'java'));
  if (major < 17) {
    throw new Error(`Elasticsearch needs Java 17 or newer; ${join(home, 'bin', 'java')} ${major ? `is Java ${major}` : 'does not run'} (set JAVA_HOME to a JDK 17+)`);
  }
  return home;
}
