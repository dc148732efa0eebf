/**
 * Streamable HTTP serving at `/mcp`. Modern (2026-07-28) requests go to
 * `createMcpHandler`, one server per request. 2025-era clients are served
 * sessionful instead of by the SDK's stateless fallback, because only a session
 * sees `initialize` and so learns whether the client can answer a confirmation.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpServer,
} from '@modelcontextprotocol/server';

/** A running HTTP endpoint. */
export type HttpEndpoint = { url: string; close(): Promise<void> };

const jsonRpcError = (status: number, message: string): Response =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });

/** The fetch-style handler: `/mcp` for both eras, `/healthz` for probes. */
export function createDiaryFetch(factory: () => McpServer): { fetch(req: Request): Promise<Response>; close(): Promise<void> } {
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  async function legacy(req: Request): Promise<Response> {
    const sid = req.headers.get('mcp-session-id');
    if (sid) {
      const t = sessions.get(sid);
      return t ? t.handleRequest(req) : jsonRpcError(404, 'Session not found');
    }
    const body: unknown = req.method === 'POST' ? await req.clone().json().catch(() => undefined) : undefined;
    if (!isInitializeRequest(body)) return jsonRpcError(400, 'Bad Request: no valid session id; start with initialize');
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await factory().connect(transport);
    return transport.handleRequest(req, { parsedBody: body });
  }

  return {
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === '/healthz' && req.method === 'GET') return new Response('ok', { status: 200 });
      if (pathname !== '/mcp') return new Response('Not found', { status: 404 });
      return (await isLegacyRequest(req)) ? legacy(req) : modern.fetch(req);
    },
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await modern.close();
    },
  };
}

async function toRequest(req: IncomingMessage, signal: AbortSignal): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && chunks.length > 0;
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
    signal,
  });
}

async function writeResponse(res: ServerResponse, r: Response): Promise<void> {
  res.writeHead(r.status, Object.fromEntries(r.headers.entries()));
  res.flushHeaders();
  if (!r.body) return void res.end();
  // Streamed (SSE) bodies are written chunk by chunk as they come.
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

/** Serves the handler on Node's http server (a small adapter to the fetch pair). */
export async function startHttp(factory: () => McpServer, host: string, port: number): Promise<HttpEndpoint> {
  const handler = createDiaryFetch(factory);
  const server: Server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    void (async () => {
      try {
        await writeResponse(res, await handler.fetch(await toRequest(req, abort.signal)));
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end();
        if (!abort.signal.aborted) process.stderr.write(`diary: http error: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}/mcp`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
