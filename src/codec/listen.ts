/**
 * Serving a web app (the codec server's, the inbox's) on a host and port: listening, the address it got (a port of 0
 * is chosen by the system), and a close that ends open connections too (an open tab's stream would hold it).
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

export interface Listening {
  /** `http://host:port`, an IPv6 address in brackets. */
  origin: string;
  close(): Promise<void>;
}

export async function listen(fetch: (request: Request) => Response | Promise<Response>, host: string, port: number): Promise<Listening> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch, hostname: host, port }, () => resolve(s));
    s.once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    origin: `http://${shownHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
