import { describe, expect, it } from 'vitest';
import { siteJson, siteListBody } from '../../api/site-json.ts';
import { forwardAuthIdentity, type Identity } from '../../domain/auth.ts';
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

const ADMIN = forwardAuthIdentity('root', new Set(['root']));
const VIEWER = forwardAuthIdentity('guest', new Set(['root']));

const api = (port: number) => ({ siteUrl: (a: { group: string; slug: string }) => `http://${[a.slug, ...a.group.split('/').reverse()].join('.')}.localhost:${port}/` });

/** What the route answered before: the object, serialized by koa. */
function expected(apiCtx: ReturnType<typeof api>, all: SiteDoc[], offset: number, limit: number, reader: Identity = ADMIN): string {
  const toSite = (d: SiteDoc) => siteJson(apiCtx, d, reader);
  return JSON.stringify({ sites: all.slice(offset, offset + limit).map(toSite), tree: buildTree(all, toSite), count: all.length });
}

describe('siteListBody', () => {
  const all = docs('zeta', 'decks', 'decks/pr-6', 'docs/app', 'docs/app/v2', 'docs/api', 'team/a/y', 'team/a', 'alpha');

  it('writes the bytes JSON.stringify gives the listing object', () => {
    const a = api(8080);
    for (const reader of [ADMIN, VIEWER]) {
      for (const [offset, limit] of [[0, 50], [2, 3], [9, 1], [0, 1]] as const) {
        const body = siteListBody(a, { page: all.slice(offset, offset + limit), count: all.length, all }, reader);
        expect(body.toString('utf8')).toBe(expected(a, all, offset, limit, reader));
      }
    }
  });

  it('writes an empty listing', () => {
    const a = api(8080);
    expect(siteListBody(a, { page: [], count: 0, all: [] }, VIEWER).toString('utf8')).toBe(expected(a, [], 0, 50));
  });

  it('remakes the sites of a cached document when the configured URLs change', () => {
    const first = siteListBody(api(8080), { page: all, count: all.length, all }, ADMIN).toString('utf8');
    const moved = siteListBody(api(9090), { page: all, count: all.length, all }, ADMIN).toString('utf8');
    expect(first).toContain('.localhost:8080/');
    expect(moved).not.toContain('.localhost:8080/');
    expect(moved).toBe(expected(api(9090), all, 0, all.length));
  });

  it('attack: a document serialized for an admin first is not handed to a viewer with who changed it (updated_by)', () => {
    const a = api(8080);
    const forAdmin = JSON.parse(siteListBody(a, { page: all, count: all.length, all }, ADMIN).toString('utf8')) as { sites: { updated_by?: unknown }[] };
    expect(forAdmin.sites.every((s) => s.updated_by !== undefined)).toBe(true);
    const forViewer = siteListBody(a, { page: all, count: all.length, all }, VIEWER).toString('utf8');
    expect(forViewer).not.toContain('updated_by');
    expect(siteJson(a, all[0]!, VIEWER)).not.toHaveProperty('updated_by');
    expect(siteJson(a, all[0]!, ADMIN)).toHaveProperty('updated_by');
  });
});
