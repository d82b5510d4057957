/**
 * Redis for local runs: use the one at REDIS_URL; if none answers and redis-server is
 * installed, start one for the run (no persistence); otherwise say how to get one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { redisAnswers } from '../adapters/redis.ts';

export async function ensureRedis(config: Config, log: (line: string) => void = () => {}): Promise<{ started: boolean }> {
  if (await redisAnswers(config.redisUrl)) return { started: false };
  const url = new URL(config.redisUrl);
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  const has = spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;
  if (!local || !has) {
    throw new Error(
      `no Redis answers at ${config.redisUrl}. ${local ? 'Install one (apt-get install redis-server, or docker compose up redis)' : 'Start it'} or point REDIS_URL at a running Redis.`,
    );
  }
  const dir = join(config.home, 'redis');
  mkdirSync(dir, { recursive: true });
  const port = url.port || '6379';
  log(`starting redis-server on port ${port}`);
  const r = spawnSync('redis-server', ['--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--dir', dir, '--pidfile', join(dir, 'redis.pid'), '--logfile', join(dir, 'redis.log')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`redis-server failed to start: ${r.stderr || r.stdout}`);
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(config.redisUrl)) return { started: true };
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`redis-server started but ${config.redisUrl} does not answer; see ${join(dir, 'redis.log')}`);
}
