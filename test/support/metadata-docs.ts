import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestPki } from './tls.ts';

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** An MCP host's web server, serving OAuth client ID metadata documents over https with a test CA's certificate: documents by path, and a log of the paths asked for. */
export class DocumentServer {
  server!: Server;
  port = 0;
  readonly routes = new Map<string, Route>();
  readonly hits: string[] = [];
  async start(pki: TestPki) {
    const { key, cert } = await pki.issue(['DNS:localhost', 'IP:127.0.0.1']);
    this.server = createServer({ key, cert }, (req, res) => {
      this.hits.push(req.url ?? '');
      const route = this.routes.get(req.url ?? '');
      if (route) return route(req, res);
      res.writeHead(404).end('not here');
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  url(path: string, host = 'localhost') {
    return `https://${host}:${this.port}${path}`;
  }
  /** Serves a JSON document at `path`; `doc` may use the URL it is served at. */
  json(path: string, doc: (url: string) => unknown, headers: Record<string, string> = { 'Cache-Control': 'max-age=300' }) {
    const body = (url: string) => JSON.stringify(doc(url));
    this.routes.set(path, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
      res.end(body(this.url(path)));
    });
    return this.url(path);
  }
  count(path: string) {
    return this.hits.filter((h) => h === path).length;
  }
  async stop() {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

