import type { Context, Next } from 'koa';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import mime from 'mime-types';
import { portalCsp } from '../api/security-headers.ts';
import { projectRoot } from './root.ts';

const DIST = join(projectRoot, 'portal', 'dist');

/**
 * Serves the built portal (portal/dist) on the apex: files by name, and index.html for
 * any other GET outside the API so client-side routes survive a reload. The apex-wide
 * security headers (api/security-headers.ts) are already set; HTML gets the portal's CSP.
 */
export function portalMiddleware(apexes: readonly string[]) {
  const csp = portalCsp(apexes);
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path;
    if (/^\/(api|ingest|mcp|\.well-known)(\/|$)/.test(path)) return next();
    const rel = normalize(decodeURIComponent(path)).replace(/^([/\\])+/, '');
    if (rel.startsWith('..')) return next();
    const file = extname(rel) ? join(DIST, rel) : join(DIST, 'index.html');
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) {
      if (extname(rel)) return next();
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The portal is not built yet: run `npm install` (or `node bin/build-portal.mjs`).\n';
      return;
    }
    ctx.type = mime.lookup(file) || 'application/octet-stream';
    ctx.length = info.size;
    ctx.set('Cache-Control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=300');
    if (ctx.type.startsWith('text/html')) ctx.set('Content-Security-Policy', csp);
    ctx.body = createReadStream(file);
  };
}
