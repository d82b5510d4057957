/**
 * A local multi-node Elasticsearch cluster for tests, from the same distribution `bintel es start`
 * provisions: N nodes with 512 MB heap each, distinct HTTP and transport ports on loopback, one
 * config, data and log directory per node (under BINTEL_HOME, owned by the unprivileged user when
 * we are root). `kill(i)` SIGKILLs a node, `restart(i)` starts it again on its data; `stop()`
 * kills every node and removes the directories, also after a failed test.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { esPaths, findJavaHome } from '../../local/es-dist.ts';
import { ES_USER } from '../../local/es-setup.ts';

export interface LocalEsCluster {
  urls: string[];
  /** The ES_URL value naming every node. */
  env: string;
  kill(i: number): Promise<void>;
  restart(i: number): Promise<void>;
  /** Waits until the cluster has `nodes` nodes and is green (or yellow when `yellow`). */
  waitFor(nodes: number, status?: 'green' | 'yellow'): Promise<void>;
  stop(): Promise<void>;
}

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * `n` free ports for the nodes, from 12000-15999: below Linux's ephemeral range (32768-60999),
 * where the outgoing connections of every other test process take their source ports, so none
 * can take a port here between this check and the node binding it seconds later (which failed a
 * node start when the range was 41000-48999), and apart from the Redis Cluster helper's.
 */
async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = 12_000 + Math.floor(Math.random() * 4000);
    if (!out.includes(p) && (await free(p))) out.push(p);
  }
  return out;
}

/** uid/gid of the Elasticsearch user when we are root, else null (run as ourselves). */
function esUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = spawnSync('id', ['-u', ES_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', ES_USER], { encoding: 'utf8' });
  if (uid.status !== 0) throw new Error(`user ${ES_USER} does not exist: run \`bintel es start\` once first`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export async function startEsCluster(n = 3): Promise<LocalEsCluster> {
  const config = loadConfig();
  const paths = esPaths(config);
  const root = join(paths.root, `cluster-${randomBytes(4).toString('hex')}`);
  const ports = await freePorts(2 * n);
  const http = ports.slice(0, n);
  const transport = ports.slice(n);
  const name = `bintel-test-${randomBytes(3).toString('hex')}`;
  const user = esUser();
  const javaHome = findJavaHome(process.env);
  const nodeDir = (i: number) => join(root, `node-${i}`);
  for (let i = 0; i < n; i++) {
    const dir = nodeDir(i);
    await mkdir(join(dir, 'data'), { recursive: true });
    await mkdir(join(dir, 'logs'), { recursive: true });
    await cp(join(paths.install, 'config'), join(dir, 'config'), { recursive: true });
    await writeFile(
      join(dir, 'config', 'elasticsearch.yml'),
      [
        `cluster.name: ${name}`,
        `node.name: node-${i}`,
        'network.host: 127.0.0.1',
        `http.port: ${http[i]}`,
        `transport.port: ${transport[i]}`,
        `discovery.seed_hosts: [${transport.map((p) => `"127.0.0.1:${p}"`).join(', ')}]`,
        `cluster.initial_master_nodes: [${Array.from({ length: n }, (_, j) => `"node-${j}"`).join(', ')}]`,
        `path.data: ${join(dir, 'data')}`,
        `path.logs: ${join(dir, 'logs')}`,
        'xpack.security.enabled: false',
        'xpack.ml.enabled: false',
        'action.destructive_requires_name: true',
        'cluster.routing.allocation.disk.threshold_enabled: false',
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, 'config', 'jvm.options.d', 'heap.options'), '-Xms512m\n-Xmx512m\n');
  }
  if (user) spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, root]);

  const launch = async (i: number) => {
    const dir = nodeDir(i);
    const child = spawn(join(paths.install, 'bin', 'elasticsearch'), ['-d', '-p', join(dir, 'pid')], {
      cwd: paths.install,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ES_JAVA_HOME: javaHome, ES_PATH_CONF: join(dir, 'config'), LANG: 'C.UTF-8' },
      stdio: 'ignore',
      detached: true,
      ...(user ?? {}),
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    if (code !== 0) throw new Error(`node-${i} did not start (exit ${code}); see ${join(dir, 'logs')}`);
  };
  const pidOf = async (i: number) => Number((await readFile(join(nodeDir(i), 'pid'), 'utf8').catch(() => '0')).trim());
  const urls = http.map((p) => `http://127.0.0.1:${p}`);
  const health = async (url: string) => {
    const res = await fetch(`${url}/_cluster/health`).catch(() => null);
    return res?.ok ? ((await res.json()) as { status: string; number_of_nodes: number }) : null;
  };
  const cluster: LocalEsCluster = {
    urls,
    env: urls.join(','),
    async kill(i) {
      const pid = await pidOf(i);
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      for (let k = 0; k < 100 && (await health(urls[i])); k++) await new Promise((r) => setTimeout(r, 100));
    },
    async restart(i) {
      await launch(i);
    },
    async waitFor(nodes, status = 'green') {
      const ok = status === 'green' ? ['green'] : ['green', 'yellow'];
      for (let k = 0; k < 1800; k++) {
        for (const u of urls) {
          const h = await health(u);
          if (h && h.number_of_nodes === nodes && ok.includes(h.status)) return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the cluster did not reach ${nodes} nodes, ${status}`);
    },
    async stop() {
      for (let i = 0; i < n; i++) {
        const pid = await pidOf(i);
        try {
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      await new Promise((r) => setTimeout(r, 300));
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(Array.from({ length: n }, (_, i) => launch(i)));
    await cluster.waitFor(n);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
