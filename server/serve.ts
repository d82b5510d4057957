/**
 * Starting and stopping the HTTP server.
 */
import type { Server } from 'node:http';
import type { Config } from './config.ts';
import { createServices, type Services } from './context.ts';
import { createApp, type AppOptions } from './app.ts';

export interface Running {
  server: Server;
  services: Services;
  url: string;
  close: () => Promise<void>;
}

/** Listens on `port` (0: any free port) at config.host unless `host` is given. */
export async function serve(config: Config, opts: { port?: number; host?: string; services?: Services } & AppOptions = {}): Promise<Running> {
  const services = opts.services ?? createServices(config);
  await services.redis.connect().catch((err: Error) => {
    if (!/already connect/i.test(err.message)) throw new Error(`Redis at ${config.redisUrl} does not answer: ${err.message}`);
  });
  const app = createApp(services, { routes: opts.routes, access: opts.access });
  const host = opts.host ?? config.host;
  const server = app.listen(opts.port ?? config.port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    services,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      await services.close();
    },
  };
}
