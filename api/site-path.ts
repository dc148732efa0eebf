import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';

/**
 * Routes under a site path: `/api/sites/*path/revisions/:rev/files`. `*path` is a
 * wildcard (one or more segments, slashes included), so every depth reaches the handler,
 * which validates the labels and the depth (400), instead of the router answering 404.
 * A route with a fixed word after the path is registered before the bare one, so the
 * action words (and `deleted`) are never read as a slug there.
 */
export type SitePathRoute = `${string}*path${string}`;

/**
 * Registers a site-path route. Matched exactly as written: case-sensitive, and a trailing
 * slash belongs to the site path (`docs/app/` is docs/app; `…/favicon/` is not the favicon
 * route), as the regular expressions these routes replaced did.
 */
export function siteRoute(router: Router, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: SitePathRoute, handler: RouterMiddleware): void {
  router.register(path, [method], handler, { sensitive: true, strict: true });
}

/** The site path named by the `*path` of a route (decoded by the router); the use case checks its labels. */
export function sitePath(ctx: { params: Record<string, string | undefined> }): string {
  return ctx.params.path ?? '';
}

/** A named route parameter, e.g. `:rev` (decoded by the router). */
export function param(ctx: { params: Record<string, string | undefined> }, name: string): string {
  return ctx.params[name] ?? '';
}
