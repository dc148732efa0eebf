import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { putPreview } from '../support/previews.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

/**
 * The capability matrix of issue 3: every ingest route × every kind of credential, with the
 * exact status of each cell, and proof that a refused request changed nothing.
 */
let svc: RunningService;
let admin: string;
const keys: Record<string, string | undefined> = {};

type Route = { name: string; cap: string; needs: 'live' | 'quarantined'; ok: number; send: (key: string | undefined) => Promise<{ status: number }> };

const routes: Route[] = [
  { name: 'publish', cap: 'publish', needs: 'live', ok: 200, send: (k) => publish(svc.url, k, { group: 'team', slug: 'app' }, { index: '<p>new</p>' }) },
  { name: 'patch', cap: 'patch', needs: 'live', ok: 200, send: (k) => call(svc.url, 'PATCH', '/ingest/sites/team/app', { key: k, body: { description: 'changed' } }) },
  { name: 'revisions', cap: 'rollback', needs: 'live', ok: 200, send: (k) => call(svc.url, 'GET', '/ingest/sites/team/app/revisions', { key: k }) },
  { name: 'rollback', cap: 'rollback', needs: 'live', ok: 200, send: (k) => call(svc.url, 'POST', '/ingest/sites/team/app/rollback', { key: k }) },
  { name: 'unpublish', cap: 'unpublish', needs: 'live', ok: 204, send: (k) => call(svc.url, 'DELETE', '/ingest/sites/team/app', { key: k }) },
  { name: 'restore', cap: 'publish', needs: 'quarantined', ok: 200, send: (k) => call(svc.url, 'POST', '/ingest/sites/team/app/restore', { key: k }) },
  { name: 'purge', cap: 'purge', needs: 'quarantined', ok: 204, send: (k) => call(svc.url, 'POST', '/ingest/sites/team/app/purge', { key: k }) },
  // Spec §14: `preview` (which `publish` implies) and nothing else publishes a preview.
  { name: 'preview', cap: 'preview', needs: 'live', ok: 200, send: (k) => putPreview(svc.url, k, 'team/app', `pr-${Math.random().toString(36).slice(2, 8)}`, { index: '<p>pr</p>' }) },
];

const ALL = 'publish,unpublish,rollback,patch,purge';
const holders: { name: string; args?: string[]; expect: (cap: string) => number }[] = [
  { name: 'admin key', args: ['--admin'], expect: () => 0 },
  { name: 'global grant', args: ['--grant', `:${ALL}`], expect: () => 0 },
  { name: 'group grant on the parent', args: ['--grant', `team:${ALL}`], expect: () => 0 },
  { name: 'group grant on the site path', args: ['--grant', `team/app:${ALL}`], expect: () => 0 },
  { name: 'site grant', args: ['--grant-site', `team/app:${ALL}`], expect: () => 0 },
  { name: 'site grant on a sibling', args: ['--grant-site', `team/other:${ALL}`], expect: () => 403 },
  { name: 'grant without that capability', args: ['--grant', ':patch'], expect: (cap) => (cap === 'patch' ? 0 : 403) },
  // What a CI job building untrusted pull requests gets: it can never change what is live.
  { name: 'preview-only grant', args: ['--grant', 'team:preview'], expect: (cap) => (cap === 'preview' ? 0 : 403) },
  { name: 'expired key', expect: () => 401 },
  { name: 'revoked key', expect: () => 401 },
  { name: 'no key', expect: () => 401 },
];

async function snapshot() {
  const site = await call(svc.url, 'GET', '/api/sites/team/app', { user: 'admin' });
  const trash = await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' });
  const events = await call(svc.url, 'GET', '/api/sites/team/app/events', { user: 'admin' });
  return JSON.stringify([site.status, site.body, trash.body, events.body?.events?.length]);
}

/** Puts team/app into the state a route needs, with two revisions so rollback has something to do. */
async function prepare(needs: 'live' | 'quarantined') {
  const state = await call(svc.url, 'GET', '/api/sites/team/app', { user: 'admin' });
  if (state.status === 404) {
    const trash = await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' });
    if (trash.body.sites.some((s: any) => s.group === 'team' && s.slug === 'app')) await call(svc.url, 'POST', '/ingest/sites/team/app/restore', { key: admin });
  }
  for (const n of [1, 2]) await publish(svc.url, admin, { group: 'team', slug: 'app', title: 'App' }, { index: `<p>${n}</p>` });
  if (needs === 'quarantined') await call(svc.url, 'DELETE', '/ingest/sites/team/app', { key: admin });
}

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  for (const h of holders) if (h.args) keys[h.name] = await svc.createKey(['--name', h.name, ...h.args]);
  keys['expired key'] = await svc.createKey(['--name', 'expired', '--admin', '--expires-in', '1s']);
  const revoked = JSON.parse((await svc.cli(['keys', 'create', '--name', 'revoked', '--admin', '--json'])).stdout);
  await svc.cli(['keys', 'revoke', '--id', String(revoked.id)]);
  keys['revoked key'] = revoked.key;
  keys['no key'] = undefined;
  await new Promise((r) => setTimeout(r, 1000));
}, 120_000);
afterAll(() => svc?.stop());

describe('capability matrix', () => {
  for (const route of routes) {
    for (const holder of holders) {
      const expected = holder.expect(route.cap) || route.ok;
      it(`${route.name} × ${holder.name} → ${expected}`, async () => {
        await prepare(route.needs);
        const before = await snapshot();
        const res = await route.send(keys[holder.name]);
        expect(res.status).toBe(expected);
        if (expected >= 400) expect(await snapshot()).toBe(before);
        if (route.name === 'purge' && expected === 204) await publish(svc.url, admin, { group: 'team', slug: 'app', title: 'App' }, { index: '<p>0</p>' });
      });
    }
  }

  it('a refusal never reveals whether the site exists', async () => {
    const sibling = keys['site grant on a sibling'];
    const existing = await call(svc.url, 'DELETE', '/ingest/sites/team/app', { key: sibling });
    const missing = await call(svc.url, 'DELETE', '/ingest/sites/team/nothing-here', { key: sibling });
    expect(existing.status).toBe(403);
    expect(missing.status).toBe(403);
  });
});
