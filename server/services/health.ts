/**
 * Whether the API's dependencies answer, for GET /v1/health (server/routes/account.ts): no
 * answer at all is `unreachable`; an answer that refuses the check (auth, a bug) is `rejected`.
 */
import { esHealth, type Es } from '../../core/adapters/es.ts';
import type { RedisClient } from '../../core/adapters/redis.ts';
import { ServiceUnavailableError } from '../../core/errors.ts';
import type { IssueCode } from '../errors.ts';

/** One dependency's state in the health answer; `issue` says why it is not ok. */
export interface Dependency {
  ok: boolean;
  status: string;
  issue?: IssueCode;
}

/** The state of a dependency whose check threw `err`. */
export const failedDependency = (err: unknown): Dependency => (err instanceof ServiceUnavailableError ? { ok: false, status: 'unreachable', issue: 'unreachable' } : { ok: false, status: 'rejected', issue: 'rejected' });

export class DependencyHealth {
  constructor(
    private readonly esClient: Es,
    private readonly redisClient: RedisClient,
  ) {}

  /** Elasticsearch: its cluster health (red is not ok). */
  async elasticsearch(): Promise<Dependency> {
    try {
      const h = await esHealth(this.esClient);
      if (!h) return { ok: false, status: 'unreachable', issue: 'unreachable' };
      return h.status === 'red' ? { ok: false, status: h.status, issue: 'cluster_red' } : { ok: true, status: h.status };
    } catch (err) {
      return failedDependency(err);
    }
  }

  /** Redis: a PING. */
  async redis(): Promise<Dependency> {
    try {
      return (await this.redisClient.ping()) === 'PONG' ? { ok: true, status: 'ok' } : { ok: false, status: 'rejected', issue: 'rejected' };
    } catch (err) {
      return failedDependency(err);
    }
  }
}
