/**
 * A TCP proxy in front of a real service (Elasticsearch, Redis) that a test can cut: a real
 * network fault, not a mocked client. `cutAfter(n)` lets `n` more HTTP requests through, then
 * drops every connection and refuses new ones until `restore()`. `hold(pattern)` keeps requests
 * whose request line matches (and whatever follows on their connection) from the service until
 * `release()`: a request that is surely in flight. `hold(pattern, { after: n })` lets the first
 * `n` of them through: a client stopped at a known point of its work (a worker mid-export).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Lets `requests` more HTTP requests through (counted by their request line), then cuts. */
  cutAfter(requests: number): void;
  /** Drops every connection now and refuses new ones. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  /** Requests whose request line matches `pattern` wait here, with their connection, until `release()`; the first `after` (default 0) pass. */
  hold(pattern: RegExp, opts?: { after?: number }): void;
  /** Sends what was held and stops holding. */
  release(): void;
  /** HTTP requests seen so far. */
  readonly requests: number;
  /** Requests held so far. */
  readonly held: number;
  /** Bytes the service sent back so far (what a client read from it: a test compares the work of two calls). */
  readonly received: number;
  close(): Promise<void>;
}

const REQUEST_LINE = /^(GET|POST|PUT|DELETE|HEAD) /;

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  let budget = Infinity;
  let requests = 0;
  let holding: RegExp | null = null;
  let passing = 0;
  let held = 0;
  let received = 0;
  /** Flushes of the connections holding a request. */
  const waiting = new Set<() => void>();
  const drop = () => {
    down = true;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  const server: Server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let queue: Buffer[] | null = null;
    const flush = () => {
      for (const c of queue ?? []) upstream.write(c);
      queue = null;
    };
    client.on('data', (chunk: Buffer) => {
      if (REQUEST_LINE.test(chunk.subarray(0, 8).toString('latin1'))) {
        requests++;
        if (budget-- <= 0) return drop();
        if (!queue && holding?.test(chunk.subarray(0, chunk.indexOf('\r\n')).toString('latin1')) && passing-- <= 0) {
          held++;
          queue = [];
          waiting.add(flush);
        }
      }
      if (queue) return void queue.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    cutAfter(n) {
      budget = n;
    },
    cut: drop,
    restore() {
      down = false;
      budget = Infinity;
    },
    hold(pattern, opts = {}) {
      holding = pattern;
      passing = opts.after ?? 0;
    },
    release() {
      holding = null;
      for (const f of waiting) f();
      waiting.clear();
    },
    get requests() {
      return requests;
    },
    get held() {
      return held;
    },
    get received() {
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        drop();
        server.close(() => resolve());
      }),
  };
}
