/**
 * An https front for a local http server, as a deployment's TLS-terminating proxy is for the inbox: a self-signed
 * certificate for 127.0.0.1 made by the system's openssl, and a proxy that forwards each request as it came.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './temporal.js';

export interface SelfSigned {
  /** The certificate's file (PEM): a client that trusts it, e.g. through NODE_EXTRA_CA_CERTS. */
  certPath: string;
  cert: string;
  key: string;
}

/** A certificate for 127.0.0.1 (and localhost), valid for a day. */
export function selfSignedCert(): SelfSigned {
  const dir = tempDir('tls-');
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyPath, '-out', certPath,
  ], { stdio: 'ignore' }); // prettier-ignore
  return { certPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}

export interface TlsProxy {
  /** https://127.0.0.1:<port>/ */
  url: string;
  close(): Promise<void>;
}

/** Listen on an https port of 127.0.0.1 and forward every request to `target()` (an http origin, read per request). */
export async function startTlsProxy(tls: SelfSigned, target: () => string): Promise<TlsProxy> {
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const to = new URL(target());
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
