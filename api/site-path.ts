import { parseSitePath, type SiteAddress } from '../domain/paths.ts';

/** The `{path}` of a route: `@koa/router` gives the wildcard match; labels are validated here. */
export function addressParam(raw: string | undefined): SiteAddress {
  return parseSitePath(decodeURIComponent(raw ?? ''));
}

/** The i-th capture group of a RegExp route (`@koa/router` puts them in `ctx.captures`). */
export function capture(ctx: { captures?: string[] }, i: number): string {
  return ctx.captures?.[i] ?? '';
}
