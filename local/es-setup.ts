/**
 * Configuration and ownership of the local Elasticsearch install: a single-node, security-off
 * node on loopback, and, when we are root, a dedicated unprivileged user to run it
 * (Elasticsearch refuses to run as root).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../core/config.ts';
import { LOCAL_CLUSTER, type EsPaths } from './es-dist.ts';
import { runChecked } from './sys.ts';

/** The system user that runs Elasticsearch when bintel runs as root. */
export const ES_USER = 'bintel-es';

/** The elasticsearch.yml of the local node. */
function elasticsearchYml(config: Pick<Config, 'esPort'>, paths: EsPaths): string {
  const lines = [
    `cluster.name: ${LOCAL_CLUSTER}`,
    'node.name: bintel-local-1',
    // Single-node discovery on loopback: no cluster formation, bootstrap checks are warnings only.
    'discovery.type: single-node',
    'network.host: 127.0.0.1',
    `http.port: ${config.esPort}`,
    `path.data: ${paths.data}`,
    `path.logs: ${paths.logs}`,
    'xpack.security.enabled: false',
    // No `DELETE *`: test cleanup must name every index.
    'action.destructive_requires_name: true',
    // Disks here are often quite full; the watermarks would silently make indices read-only.
    'cluster.routing.allocation.disk.threshold_enabled: false',
  ];
  // x-pack-core registers this setting (the integ-test zip has no ML module, yet accepts it);
  // without x-pack it would be an unknown setting, which aborts startup.
  if (existsSync(join(paths.install, 'modules', 'x-pack-core'))) lines.push('xpack.ml.enabled: false');
  return `${lines.join('\n')}\n`;
}

/** Writes elasticsearch.yml and the heap options, and creates the data and log directories. */
export async function configureEs(config: Pick<Config, 'esPort' | 'esHeap'>, paths: EsPaths): Promise<void> {
  await mkdir(paths.data, { recursive: true });
  await mkdir(paths.logs, { recursive: true });
  const conf = join(paths.install, 'config');
  await writeFile(join(conf, 'elasticsearch.yml'), elasticsearchYml(config, paths));
  await mkdir(join(conf, 'jvm.options.d'), { recursive: true });
  await writeFile(join(conf, 'jvm.options.d', 'heap.options'), `-Xms${config.esHeap}\n-Xmx${config.esHeap}\n`);
}

/** uid and gid of a user, or null when it does not exist. */
function userIds(name: string): { uid: number; gid: number } | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Creates the system user unless it exists (idempotent). */
function ensureUser(): { uid: number; gid: number } {
  const existing = userIds(ES_USER);
  if (existing) return existing;
  runChecked('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', ES_USER], `useradd ${ES_USER}`);
  const created = userIds(ES_USER);
  if (!created) throw new Error(`useradd ${ES_USER} succeeded but the user cannot be found`);
  return created;
}

/** Fails clearly when the user cannot reach the directory (e.g. a home under /root). */
function assertReachable(dir: string, ids: { uid: number; gid: number }): void {
  const r = spawnSync('test', ['-w', dir, '-a', '-x', dir], { uid: ids.uid, gid: ids.gid });
  if (r.status !== 0) {
    throw new Error(`user ${ES_USER} cannot write to ${dir}: a parent directory is not accessible to other users; set BINTEL_HOME to a directory outside /root (e.g. /var/lib/bintel)`);
  }
}

/**
 * When running as root: makes sure the unprivileged user exists and owns the install, data,
 * logs and the es root (for the pid file). Returns its ids to spawn with, or null when we
 * are not root and Elasticsearch can run as ourselves.
 */
export async function prepareEsUser(paths: EsPaths): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const ids = ensureUser();
  runChecked('chown', ['-R', `${ids.uid}:${ids.gid}`, paths.install, paths.data, paths.logs], 'chown');
  await chown(paths.root, ids.uid, ids.gid);
  // The user has to traverse config.home; we created it, so opening it up is ours to do.
  await chmod(join(paths.root, '..'), 0o755);
  assertReachable(paths.root, ids);
  return ids;
}
