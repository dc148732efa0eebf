import type { Context } from 'koa';
import { createMcpHandler, originValidationResponse, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { ApiContext } from '../../api/context.ts';
import { createSitesServer } from './server.ts';
import { clientOf, identityOf } from './tools/identity.ts';

/**
 * The Streamable HTTP endpoint. Stateless: one server per request, bound to the request's
 * token (the SDK's modern 2026-07-28 path, and its stateless fallback for 2025-era
 * clients). The body bound lets a publish carry `maxUploadBytes` of files as base64.
 */
export function createTransport(api: ApiContext): McpHttpHandler {
  const maxRequestBodySize = Math.ceil((api.config.maxUploadBytes * 4) / 3) + 1024 * 1024;
  return createMcpHandler((ctx) => createSitesServer(api, identityOf(ctx.authInfo), clientOf(ctx.authInfo)), {
    legacy: 'stateless',
    maxRequestBodySize,
    // Protocol errors are the client's (a bad message, an unknown session): worth a line when debugging only.
    onerror: (err) => api.hooks.log.debug('mcp: request failed', { error: err.message }),
  });
}

/** Hostnames a browser-sent `Origin` may carry (DNS-rebinding defence, MCP transport spec). */
function allowedOrigins(api: ApiContext): string[] {
  return [api.config.baseDomain, ...api.config.aliasDomains, 'localhost', '127.0.0.1', '[::1]'];
}

/** Hands the raw Node request to the SDK handler and streams its answer back (JSON or SSE). */
export async function serveMcp(api: ApiContext, handler: McpHttpHandler, ctx: Context, authInfo: AuthInfo): Promise<void> {
  const abort = new AbortController();
  ctx.res.on('close', () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(ctx.req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = ctx.method !== 'GET' && ctx.method !== 'HEAD';
  const request = new Request(`${api.apexOrigin()}${ctx.url}`, {
    method: ctx.method,
    headers,
    ...(hasBody ? { body: ctx.req as unknown as ReadableStream, duplex: 'half' } : {}),
    signal: abort.signal,
  } as RequestInit);
  const response = originValidationResponse(request, allowedOrigins(api)) ?? (await handler.fetch(request, { authInfo }));
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  res.flushHeaders();
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away mid-stream; nothing to answer.
  } finally {
    res.end();
  }
}
