/**
 * The local single-node Elasticsearch for development, tests, CI and new users: start it when
 * nothing answers at ES_URL, stop it (only if bintel started it), and report where it runs.
 * Never a stand-in: when it cannot be had, the exact error and the log tail are raised.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../core/config.ts';
import { createEs, esHealth, waitForEs, type EsHealth } from '../core/adapters/es.ts';
import { esPaths, fetchDist, findJavaHome, unpackDist, type EsPaths } from './es-dist.ts';
import { configureEs, prepareEsUser } from './es-setup.ts';
import { isLoopback, pidAlive, sleep, tailFile } from './sys.ts';

type Log = (line: string) => void;

/** How long a fresh node may take to answer `_cluster/health`. */
const START_TIMEOUT_MS = 180_000;
/** How long `stop` waits for the process to exit after SIGTERM. */
const STOP_TIMEOUT_MS = 60_000;

/** Where Elasticsearch runs and how healthy it is. */
export interface EsStatus {
  url: string;
  answering: boolean;
  health: EsHealth | null;
  /** The bintel-managed install; pid is null when bintel did not start the one that answers. */
  local: { pid: number | null; pidFile: string; install: string; data: string; logs: string };
}

/** True when the pid belongs to an Elasticsearch JVM (a recycled pid must never be signalled). */
async function isEsProcess(pid: number): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes('org.elasticsearch');
  } catch {
    // No procfs (macOS): trust the pid file.
    return pidAlive(pid);
  }
}

/** The pid of our running node from the pid file, or null (a stale file counts as none). */
async function runningPid(paths: EsPaths): Promise<number | null> {
  let pid: number;
  try {
    pid = Number((await readFile(paths.pidFile, 'utf8')).trim());
  } catch {
    return null;
  }
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid) && (await isEsProcess(pid)) ? pid : null;
}

/** Log lines that name a failure: ERROR/FATAL entries, the launcher's verdict, root causes. */
const FAILURE_LINE = /\]\[(ERROR|FATAL)\s*\]|^ERROR:|^Caused by:|Exception:/;
/** Stack frames, which would crowd everything else out of a tail. */
const STACK_FRAME = /^\s+(at |\.\.\. \d+ more)/;

/** The failure lines and the frame-free tail of one log, or '' when it is empty. */
async function digest(file: string): Promise<string> {
  const lines = (await tailFile(file, 2000)).split('\n').filter((l) => l && !STACK_FRAME.test(l));
  if (!lines.length) return '';
  const failures = [...new Set(lines.filter((l) => FAILURE_LINE.test(l)))].slice(-8);
  const tail = lines.slice(-12);
  return `--- ${file}\n${failures.length ? `failures:\n${failures.join('\n')}\ntail:\n` : ''}${tail.join('\n')}`;
}

/**
 * A digest for error messages. The launcher log carries the node's console until it detaches,
 * so it explains failed launches; failures after detaching are only in the server log.
 */
async function logTails(paths: EsPaths, after: 'launch' | 'detach'): Promise<string> {
  const [first, second] = after === 'launch' ? [paths.launcherLog, paths.serverLog] : [paths.serverLog, paths.launcherLog];
  const text = (await digest(first)) || (await digest(second)) || `(no log written in ${paths.logs})`;
  return `\n${text}\n(full log: ${paths.serverLog})`;
}

/** A one-shot health check that never throws. */
async function healthAt(config: Config): Promise<EsHealth | null> {
  const es = createEs(config);
  try {
    return await esHealth(es).catch(() => null);
  } finally {
    await es.close();
  }
}

/**
 * Runs `bin/elasticsearch -d -p <pid file>`: the launcher returns once the node has started (or
 * failed), leaving the server running. Its own session, so Ctrl-C in our terminal spares it.
 */
async function launch(paths: EsPaths, javaHome: string, user: { uid: number; gid: number } | null, path: string): Promise<void> {
  const out = openSync(paths.launcherLog, 'w');
  try {
    const child = spawn(join(paths.install, 'bin', 'elasticsearch'), ['-d', '-p', paths.pidFile], {
      cwd: paths.install,
      // A clean environment: the launcher warns about and ignores JAVA_HOME, JAVA_OPTS and friends.
      env: { PATH: path, HOME: paths.root, ES_JAVA_HOME: javaHome, ES_PATH_CONF: join(paths.install, 'config'), LANG: 'C.UTF-8' },
      stdio: ['ignore', out, out],
      detached: true,
      ...(user ?? {}),
    });
    const code = await new Promise<number | string>((resolve) => {
      child.on('error', (err) => resolve(err.message));
      child.on('exit', (c, signal) => resolve(c ?? signal ?? 'unknown'));
    });
    if (code !== 0) throw new Error(`bin/elasticsearch -d exited with ${code}`);
  } finally {
    closeSync(out);
  }
}

/** Provisions, configures and starts the local node, then waits until it is healthy. */
async function startLocal(config: Config, paths: EsPaths, log: Log, env: NodeJS.ProcessEnv): Promise<EsHealth> {
  await fetchDist(config.esVersion, paths, log);
  await unpackDist(paths, log);
  await configureEs(config, paths);
  const javaHome = findJavaHome(env);
  const user = await prepareEsUser(paths);
  log(`starting Elasticsearch ${config.esVersion} at ${config.esUrl} (java ${javaHome}${user ? `, user bintel-es` : ''})`);
  const t0 = Date.now();
  try {
    await launch(paths, javaHome, user, env.PATH || '/usr/local/bin:/usr/bin:/bin');
  } catch (err) {
    throw new Error(`Elasticsearch failed to start: ${(err as Error).message}${await logTails(paths, 'launch')}`);
  }
  const health = await waitHealthy(config, paths);
  log(`Elasticsearch ${config.esVersion} is ${health.status} at ${config.esUrl} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return health;
}

/** Waits for health; on timeout stops the half-started node so the port is not left taken. */
async function waitHealthy(config: Config, paths: EsPaths): Promise<EsHealth> {
  const es = createEs(config);
  try {
    return await waitForEs(es, START_TIMEOUT_MS);
  } catch (err) {
    const pid = await runningPid(paths);
    if (pid) await terminate(pid);
    throw new Error(`${(err as Error).message}${pid ? ` (stopped pid ${pid})` : ''}${await logTails(paths, 'detach')}`);
  } finally {
    await es.close();
  }
}

/** Waits for an Elasticsearch we will not start ourselves; `what` says what we wait for. */
async function waitForExisting(config: Config, what: string, log: Log): Promise<EsHealth> {
  log(`waiting for ${what}`);
  const es = createEs(config);
  try {
    return await waitForEs(es, START_TIMEOUT_MS);
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`);
  } finally {
    await es.close();
  }
}

/**
 * Makes sure Elasticsearch answers at `config.esUrl`, green or yellow. Nothing to do when it
 * does; when it is red or our node is still starting, waits; for a loopback URL provisions and
 * starts a local node; for a remote URL waits (e.g. a container still booting). `env` is only
 * where Java (ES_JAVA_HOME, JAVA_HOME, PATH) is looked up.
 */
export async function ensureEs(config: Config, log: Log = () => {}, env: NodeJS.ProcessEnv = process.env): Promise<{ started: boolean; health: EsHealth }> {
  const health = await healthAt(config);
  if (health && health.status !== 'red') return { started: false, health };
  const paths = esPaths(config);
  const pid = await runningPid(paths);
  if (health) return { started: false, health: await waitForExisting(config, `the red cluster at ${config.esUrl} to turn yellow`, log) };
  if (pid) return { started: false, health: await waitForExisting(config, `the local Elasticsearch (pid ${pid}) to answer at ${config.esUrl}`, log) };
  if (!isLoopback(new URL(config.esUrl).hostname)) {
    return { started: false, health: await waitForExisting(config, `Elasticsearch at ${config.esUrl} (not a loopback URL, so bintel cannot start it)`, log) };
  }
  return { started: true, health: await startLocal(config, paths, log, env) };
}

/** SIGTERM, then waits; true when the process is gone. */
async function terminate(pid: number): Promise<boolean> {
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (pidAlive(pid) && Date.now() < deadline) await sleep(250);
  return !pidAlive(pid);
}

/**
 * Stops the local node started by `ensureEs`, and never one we did not start.
 * Returns whether something was stopped; throws when it outlives the 60 s grace.
 */
export async function stopEs(config: Config, log: Log = () => {}): Promise<{ stopped: boolean; pid: number | null }> {
  const paths = esPaths(config);
  const pid = await runningPid(paths);
  if (!pid) {
    await rm(paths.pidFile, { force: true });
    const answering = (await healthAt(config)) !== null;
    log(answering ? `Elasticsearch at ${config.esUrl} was not started by bintel (no live pid in ${paths.pidFile}); leaving it alone` : `no Elasticsearch is running at ${config.esUrl}`);
    return { stopped: false, pid: null };
  }
  log(`stopping Elasticsearch (pid ${pid})`);
  const t0 = Date.now();
  if (!(await terminate(pid))) throw new Error(`Elasticsearch (pid ${pid}) is still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; see ${paths.serverLog}`);
  await rm(paths.pidFile, { force: true });
  log(`stopped Elasticsearch (pid ${pid}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { stopped: true, pid };
}

/** Whether Elasticsearch answers at `config.esUrl`, its health, and the local install if ours. */
export async function esStatus(config: Config): Promise<EsStatus> {
  const health = await healthAt(config);
  const paths = esPaths(config);
  return {
    url: config.esUrl,
    answering: health !== null,
    health,
    local: { pid: await runningPid(paths), pidFile: paths.pidFile, install: paths.install, data: paths.data, logs: paths.logs },
  };
}
