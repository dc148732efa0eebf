import { parseSitePath, type SiteAddress } from '../domain/paths.ts';

/** The `{path}` of a route: `@koa/router` gives the wildcard match; labels are validated here. */
export function addressParam(raw: string | undefined): SiteAddress {
  return parseSitePath(decodeURIComponent(raw ?? ''));
}
