/**
 * A minimal forward-auth reverse proxy for the browser tests, the production topology in
 * miniature: it signs every request in as one user by setting `Remote-User` (dropping any
 * value the client sent) and forwards it to the service from 127.0.0.1, a trusted peer.
 *
 * Why not Playwright's `extraHTTPHeaders`? Chromium does not add them to download
 * requests, so "Download file" and "Download .zip" would reach the API signed out.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type AuthProxy = { url: string; close(): Promise<void> };

export async function startAuthProxy(target: string, user: string | undefined): Promise<AuthProxy> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers['remote-user'];
    if (user) headers['remote-user'] = user;
    const out = http.request(
      { host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('upstream unreachable');
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
