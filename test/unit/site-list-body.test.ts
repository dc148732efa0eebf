import { describe, expect, it } from 'vitest';
import { SiteShapes } from '../../app/contract/site-json.ts';
import type { SiteListResult } from '../../projections/queries.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import { projectSite } from '../../projections/project.ts';
import { buildTree } from '../../projections/site-list.ts';
import { eventLog, meta, published, revision } from '../contracts/readmodel-events.ts';

/** Live site documents for these paths, built by the real projection, with awkward text. */
function docs(...paths: string[]): SiteDoc[] {
  const log = eventLog();
  return paths.map((p, i) => {
    const m = meta(`“${p}” "quoted" \\ ${i % 2 ? '\u2028' : '😀'}`, { description: `line\nbreak ${p}`, tags: ['a', `t${i}`], ...(i % 3 ? { hidden: true, date: '2024-01-0' + (i % 9) } : {}) });
    return projectSite(null, log.site(p, published(p, i + 1, revision(`r${i}`, i % 2 ? { favicon: `f${i}` } : {}), m)))!;
  });
}

/**
 * One instance's shapes, whose site URLs follow its public port (known only once it listens,
 * so it may change under a document already serialized): `api(port)` sets that port.
 */
let publicPort = 8080;
const siteUrl = (a: { group: string; slug: string }) => `http://${[a.slug, ...a.group.split('/').reverse()].join('.')}.localhost:${publicPort}/`;
const shapes = new SiteShapes(siteUrl);
const api = (port: number) => {
  publicPort = port;
  return { port };
};
const siteJson = (apiCtx: ReturnType<typeof api>, doc: SiteDoc) => (api(apiCtx.port), shapes.site(doc));
const siteListBody = (apiCtx: ReturnType<typeof api>, result: SiteListResult) => (api(apiCtx.port), shapes.listBody(result));

/** What the route answered before: the object, serialized by koa. */
function expected(apiCtx: ReturnType<typeof api>, all: SiteDoc[], offset: number, limit: number): string {
  const toSite = (d: SiteDoc) => siteJson(apiCtx, d);
  return JSON.stringify({ sites: all.slice(offset, offset + limit).map(toSite), tree: buildTree(all, toSite), count: all.length });
}

describe('siteListBody', () => {
  const all = docs('zeta', 'decks', 'decks/pr-6', 'docs/app', 'docs/app/v2', 'docs/api', 'team/a/y', 'team/a', 'alpha');

  it('writes the bytes JSON.stringify gives the listing object', () => {
    const a = api(8080);
    for (const [offset, limit] of [[0, 50], [2, 3], [9, 1], [0, 1]] as const) {
      const body = siteListBody(a, { page: all.slice(offset, offset + limit), count: all.length, all });
      expect(body.toString('utf8')).toBe(expected(a, all, offset, limit));
    }
  });

  it('writes an empty listing', () => {
    const a = api(8080);
    expect(siteListBody(a, { page: [], count: 0, all: [] }).toString('utf8')).toBe(expected(a, [], 0, 50));
  });

  it('remakes the sites of a cached document when the configured URLs change', () => {
    const first = siteListBody(api(8080), { page: all, count: all.length, all }).toString('utf8');
    const moved = siteListBody(api(9090), { page: all, count: all.length, all }).toString('utf8');
    expect(first).toContain('.localhost:8080/');
    expect(moved).not.toContain('.localhost:8080/');
    expect(moved).toBe(expected(api(9090), all, 0, all.length));
  });
});
