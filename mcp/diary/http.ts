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
  hostHeaderValidationResponse,
  isInitializeRequest,
  isLegacyRequest,
  localhostAllowedHostnames,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
  type McpServer,
} from '@modelcontextprotocol/server';
import { createSessionTable, type SessionLimits } from './sessions.ts';

/** A running HTTP endpoint. */
export type HttpEndpoint = {
  url: string;
  /** Open 2025-era sessions: for tests and diagnostics, never served over HTTP. */
  sessionCount(): number;
  close(): Promise<void>;
};

/** How the endpoint guards itself; config.ts reads these from the environment. */
export type HttpOptions = SessionLimits & {
  /** Host names (no ports) accepted in `Host` and `Origin` besides the loopback names. */
  allowedHosts: string[];
};

/** The defaults config.ts documents. */
export const HTTP_DEFAULTS: HttpOptions = { allowedHosts: [], idleMs: 30 * 60_000, maxSessions: 100 };

const jsonRpcError = (status: number, message: string): Response =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });

/**
 * DNS rebinding: a page on a foreign name that resolves to 127.0.0.1 reaches this
 * server as same-origin, so only the `Host` it names tells it apart, and a browser
 * page elsewhere is told apart by its `Origin`. Both are checked before any
 * routing, body parsing or session lookup, so neither era runs anything for it.
 * The SDK's helpers compare host names only (any port), answer 403 with a
 * JSON-RPC error, and let a request without `Origin` through (non-browser clients).
 */
function rebindingGuard(allowedHosts: string[]): (req: Request) => Response | undefined {
  const names = [...new Set([...localhostAllowedHostnames(), ...allowedHosts])];
  return (req) => hostHeaderValidationResponse(req, names) ?? originValidationResponse(req, names);
}

/** What {@link createDiaryFetch} returns. */
export type DiaryFetch = { fetch(req: Request): Promise<Response>; sessionCount(): number; close(): Promise<void> };

/** The fetch-style handler: `/mcp` for both eras, `/healthz` for probes. */
export function createDiaryFetch(factory: () => McpServer, opts: HttpOptions = HTTP_DEFAULTS): DiaryFetch {
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const guard = rebindingGuard(opts.allowedHosts);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const sessions = createSessionTable<WebStandardStreamableHTTPServerTransport>(opts, log);

  async function legacy(req: Request): Promise<Response> {
    const sid = req.headers.get('mcp-session-id');
    if (sid) {
      const s = sessions.get(sid);
      // An expired or evicted id is as unknown as a made-up one: 404 tells the client to start over.
      return s ? sessions.serve(s, req.method, () => s.transport.handleRequest(req)) : jsonRpcError(404, 'Session not found');
    }
    const body: unknown = req.method === 'POST' ? await req.clone().json().catch(() => undefined) : undefined;
    if (!isInitializeRequest(body)) return jsonRpcError(400, 'Bad Request: no valid session id; start with initialize');
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => sessions.drop(id),
    });
    transport.onclose = () => sessions.drop(id);
    await factory().connect(transport);
    // From here to serve() nothing awaits, so concurrent initializes cannot overfill the table.
    if (!sessions.makeRoom()) {
      await transport.close();
      return jsonRpcError(503, 'Too many sessions in use; try again later');
    }
    const s = sessions.add(id, transport);
    const res = await sessions.serve(s, req.method, () => transport.handleRequest(req, { parsedBody: body }));
    // A refused initialize (bad Accept header, say) leaves no session behind.
    if (transport.sessionId === undefined) await transport.close();
    return res;
  }

  return {
    async fetch(req) {
      const refused = guard(req);
      if (refused) return refused;
      if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return jsonRpcError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
      const { pathname } = new URL(req.url);
      if (pathname === '/healthz' && req.method === 'GET') return new Response('ok', { status: 200 });
      if (pathname !== '/mcp') return new Response('Not found', { status: 404 });
      return (await isLegacyRequest(req)) ? legacy(req) : modern.fetch(req);
    },
    sessionCount: () => sessions.size(),
    async close() {
      await sessions.closeAll();
      await modern.close();
    },
  };
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  // A Host that makes no URL still reaches the guard (as a header) and is refused there.
  const path = req.url ?? '/';
  const asSent = `http://${req.headers.host ?? 'localhost'}${path}`;
  const url = URL.canParse(asSent) ? asSent : `http://localhost${path}`;
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? lazyBody(req) : undefined,
    duplex: 'half',
    signal,
  } as RequestInit);
}

/** Bound of one request body: MCP messages are small JSON documents (a tool call with a long note is a few KB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The body, read in full on the first read and not before: a request the guard
 * refuses is answered with its body untouched, which Node then discards, so the
 * connection stays usable and nothing of the body is held.
 */
function lazyBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const chunks: Buffer[] = [];
        let bytes = 0;
        for await (const chunk of req) {
          bytes += (chunk as Buffer).length;
          // A chunked body has no Content-Length to refuse up front: stop reading at the bound.
          if (bytes > MAX_BODY_BYTES) {
            req.destroy();
            c.error(new Error(`the request body is larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk as Buffer);
        }
        c.enqueue(Buffer.concat(chunks));
        c.close();
      },
    },
    { highWaterMark: 0 },
  );
}

async function writeResponse(res: ServerResponse, r: Response, signal: AbortSignal): Promise<void> {
  res.writeHead(r.status, Object.fromEntries(r.headers.entries()));
  res.flushHeaders();
  if (!r.body) return void res.end();
  // Streamed (SSE) bodies are written chunk by chunk as they come; a client that
  // goes away cancels its stream, so the transport stops feeding it.
  const reader = r.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  res.end();
}

/** Serves the handler on Node's http server (a small adapter to the fetch pair). */
export async function startHttp(factory: () => McpServer, host: string, port: number, opts: HttpOptions = HTTP_DEFAULTS): Promise<HttpEndpoint> {
  const handler = createDiaryFetch(factory, opts);
  const server: Server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    void (async () => {
      try {
        await writeResponse(res, await handler.fetch(toRequest(req, abort.signal)), abort.signal);
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
    sessionCount: () => handler.sessionCount(),
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
