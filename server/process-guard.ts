/**
 * One failed promise never ends a serving process. Every promise nobody awaits ends in a `.catch`
 * that cannot itself reject (conventions, rule 11); should one be missed, Node's default (since
 * Node 15) is to end the whole process on an unhandled rejection, taking every request in flight
 * with it. `guardProcess` replaces that, in the processes that serve or run jobs, with an error
 * line in the log naming the request whose work it was, and the process goes on.
 *
 * The request id reaches the handler through `AsyncLocalStorage`: the envelope middleware runs
 * each request in `inRequestScope`, and Node calls the `unhandledRejection` listener in the async
 * context of the promise that rejected (so background work a request started still names it).
 *
 * Thrown exceptions (`uncaughtException`) keep Node's default: the process ends, as the state a
 * synchronous throw leaves behind is unknown; `serve --workers N` starts another process.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

const scope = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `fn` as the work of request `requestId`: what it starts, awaited or not, is that request's. */
export function inRequestScope<T>(requestId: string, fn: () => T): T {
  return scope.run({ requestId }, fn);
}

/** The id of the request whose work is running, when any. */
export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

let guardedBy: Logger | null = null;

/**
 * Logs an unhandled rejection at error level (with the request id when known) instead of
 * ending the process. Installed once per process; a later call changes only the logger.
 */
export function guardProcess(log: Logger): void {
  const installed = guardedBy !== null;
  guardedBy = log;
  if (installed) return;
  process.on('unhandledRejection', (reason) => {
    const requestId = currentRequestId();
    try {
      guardedBy?.error({ err: reason, ...(requestId ? { requestId } : {}) }, 'unhandled rejection');
    } catch {
      // The log itself failing must not end the process either.
    }
  });
}
