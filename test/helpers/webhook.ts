/** A local webhook receiver for notification tests: every POST it got, answered with a chosen status. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request's path and query (one receiver can stand for several channels: `/hook?to=ana`). */
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  status: number;
}

/** A local webhook receiver: answers each POST with `statusFor(n)` (n counts from 1). */
export async function receiver(statusFor: (n: number) => number = () => 204): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString('utf8')));
    req.on('end', () => {
      const status = statusFor(received.length + 1);
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
