/**
 * A TCP proxy in front of a real service (Elasticsearch, Redis) that a test can cut: a real
 * network fault, not a mocked client. `cutAfter(n)` lets `n` more HTTP requests through, then
 * drops every connection and refuses new ones until `restore()`.
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
  /** HTTP requests seen so far. */
  readonly requests: number;
  close(): Promise<void>;
}

const REQUEST_LINE = /^(GET|POST|PUT|DELETE|HEAD) /;

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  let budget = Infinity;
  let requests = 0;
  const drop = () => {
    down = true;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  const server: Server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (REQUEST_LINE.test(chunk.subarray(0, 8).toString('latin1'))) {
        requests++;
        if (budget-- <= 0) return drop();
      }
      upstream.write(chunk);
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
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        drop();
        server.close(() => resolve());
      }),
  };
}
