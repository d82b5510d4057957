/**
 * A redis-server of the test's own on a free loopback port (never the shared one on 6379), for
 * faults from outside: pause writes (`CLIENT PAUSE`), kill the process, start it again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /**
   * Every write waits (`CLIENT PAUSE ms WRITE`) until `unpause()` or `ms` pass; reads are answered.
   * (Not ALL: that pauses the pausing connection too, so nothing could unpause it before `ms`.)
   */
  pause(ms: number): Promise<void>;
  unpause(): Promise<void>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after `kill`). */
  start(): Promise<void>;
  /** Kills it and removes its directory. */
  stop(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Starts a redis-server (no persistence; `args` added to its command line) and resolves once it answers PING. */
export async function startRedisServer(args: readonly string[] = []): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bintel-redis-'));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  // One connection kept for CLIENT PAUSE/UNPAUSE.
  let control: Redis | null = null;
  const start = async () => {
    if (proc && proc.exitCode === null) return;
    proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      const r = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => {});
      const up = await r.connect().then(() => r.ping()).catch(() => null);
      if (up === 'PONG') {
        control = r;
        return;
      }
      r.disconnect();
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('redis-server did not start');
  };
  const kill = async () => {
    const p = proc;
    proc = null;
    control?.disconnect();
    control = null;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((r) => {
      p.once('exit', () => r());
      p.kill('SIGKILL');
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause: async (ms) => void (await control!.call('CLIENT', 'PAUSE', String(ms), 'WRITE')),
    unpause: async () => void (await control!.call('CLIENT', 'UNPAUSE')),
    kill,
    start,
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
