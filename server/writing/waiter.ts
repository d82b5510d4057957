/**
 * Long polls of writing jobs: a request waits for a job's next event without a sleep loop. One
 * Redis subscriber connection per server process (opened on the first wait) listens on the
 * namespace's writing-events channel; every save of a job publishes its id (`announce`);
 * waiting requests of that job are woken in-process. However many requests wait, the process
 * holds one connection.
 */
import type { QueueDeps } from '../jobs/queue.ts';
import { createRedis, type RedisClient } from '../../core/adapters/redis.ts';
import type { RedisKeys } from '../../core/names.ts';

/** Publishes a save of job `id` on the namespace's writing-events channel (wakes its long polls in every process). */
export async function announce(services: { redis: RedisClient; rk: RedisKeys }, id: string): Promise<void> {
  await services.redis.publish(services.rk.writingEvents(), id);
}

export class JobWaiter {
  private sub: RedisClient | null = null;
  private ready: Promise<void> | null = null;
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(private readonly services: QueueDeps) {}

  /** Subscribes once; later calls share the subscription. */
  private subscribe(): Promise<void> {
    this.ready ??= (async () => {
      const sub = createRedis(this.services.config, { autoPipelining: false });
      sub.on('error', (err) => this.services.log.warn({ err: err.message }, 'writing events subscriber error'));
      sub.on('message', (_channel: string, id: string) => this.wake(id));
      this.sub = sub;
      await sub.subscribe(this.services.rk.writingEvents());
    })().catch((err) => {
      this.ready = null;
      this.sub?.disconnect();
      this.sub = null;
      throw err;
    });
    return this.ready;
  }

  private wake(id: string): void {
    const set = this.waiting.get(id);
    if (!set) return;
    this.waiting.delete(id);
    for (const fn of set) fn();
  }

  /**
   * Waits until `changed()` holds (checked once subscribed, so no event can slip between the
   * check and the wait, and again at each event of the job) or `ms` pass. Returns whether it changed.
   */
  async until(id: string, ms: number, changed: () => Promise<boolean>): Promise<boolean> {
    await this.subscribe();
    const deadline = Date.now() + ms;
    for (;;) {
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const set = this.waiting.get(id) ?? new Set();
      set.add(wake);
      this.waiting.set(id, set);
      try {
        if (await changed()) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([woken.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), left)))]);
        clearTimeout(timer);
        if (timedOut) return await changed();
      } finally {
        const s = this.waiting.get(id);
        s?.delete(wake);
        if (s && !s.size) this.waiting.delete(id);
      }
    }
  }

  close(): void {
    this.sub?.disconnect();
    this.sub = null;
    this.ready = null;
  }
}
