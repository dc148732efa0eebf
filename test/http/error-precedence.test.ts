import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

/**
 * Spec §2: authorization comes before the lookup, and before the body. For every write route,
 * a credential that lacks the capability on the target named in the path is refused with 403
 * however wrong its body is (a refusal never depends on what was sent, so it reveals nothing
 * and costs no parsing); a malformed path still answers 400, because the target must be read
 * before it can be authorized. On the ingest plane the credential is a key whose grants cover
 * another group; on the management plane a scoped key (which acts as a viewer there) and a
 * signed-in viewer. The publishes name their target in the body: on the management plane a
 * viewer is refused before a byte of it is read.
 */
let svc: RunningService;
let admin: string;
let scoped: string;
const SHA = 'a'.repeat(64);

type Send = { method: string; path: string; raw?: string; type?: string };
/** Invalid bodies: not JSON, JSON of the wrong shape, and a wrong media type. */
const JUNK: { name: string; raw: string; type?: string }[] = [
  { name: 'not JSON', raw: '{"title": ' },
  { name: 'the wrong shape', raw: '{"title": 5, "revision": "no such thing", "name": [], "grants": 7, "url": 1, "events": "x", "bogus": true, "meta": 3}' },
  { name: 'not JSON at all', raw: 'title=x', type: 'text/plain' },
];

async function send(who: { key?: string; user?: string }, r: Send): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'Content-Type': r.type ?? 'application/json' };
  if (who.key) headers.Authorization = `Bearer ${who.key}`;
  if (who.user) headers['Remote-User'] = who.user;
  const res = await fetch(new URL(r.path, svc.url), { method: r.method, headers, body: r.raw });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Ingest routes that name their site in the path. */
const ingest: { method: string; path: string }[] = [
  { method: 'PATCH', path: '/ingest/sites/team/app' },
  { method: 'POST', path: '/ingest/sites/team/app/rollback' },
  { method: 'POST', path: '/ingest/sites/team/app/restore' },
  { method: 'POST', path: '/ingest/sites/team/app/purge' },
  { method: 'DELETE', path: '/ingest/sites/team/app' },
  { method: 'PUT', path: '/ingest/sites/team/app/previews/pr-1' },
  { method: 'DELETE', path: '/ingest/sites/team/app/previews/pr-1' },
];

/** Every management write: each needs an admin, so a viewer lacks it everywhere. */
const management: { method: string; path: string }[] = [
  { method: 'POST', path: '/api/sites' },
  { method: 'PATCH', path: '/api/sites/team/app' },
  { method: 'POST', path: '/api/sites/team/app/rollback' },
  { method: 'DELETE', path: '/api/sites/team/app' },
  { method: 'POST', path: '/api/sites/deleted/team/app' },
  { method: 'DELETE', path: '/api/sites/deleted/team/app' },
  { method: 'POST', path: '/api/keys' },
  { method: 'DELETE', path: '/api/keys/1' },
  { method: 'POST', path: '/api/webhooks' },
  { method: 'DELETE', path: '/api/webhooks/wh_00000000000000000000' },
  { method: 'POST', path: '/api/webhooks/wh_00000000000000000000/deliveries/1/redeliver' },
  { method: 'POST', path: '/api/deploys' },
  { method: 'PUT', path: `/api/deploys/some-deploy/files/${SHA}` },
  { method: 'POST', path: '/api/deploys/some-deploy/publish' },
  { method: 'DELETE', path: '/api/mcp/connections/1' },
  { method: 'PUT', path: '/api/sites/team/app/domains/not_a_domain' },
  { method: 'DELETE', path: '/api/sites/team/app/domains/docs.example.com' },
];

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  scoped = await svc.createKey(['--name', 'elsewhere', '--grant', 'other:publish,unpublish,rollback,patch,purge']);
  for (const n of [1, 2]) expect((await publish(svc.url, admin, { group: 'team', slug: 'app', title: 'App' }, { index: `<p>${n}</p>` })).status).toBe(200);
}, 60_000);
afterAll(() => svc?.stop());

describe('403 before 400: a credential without the capability on the path is refused whatever its body', () => {
  for (const route of ingest) {
    for (const junk of JUNK) {
      it(`${route.method} ${route.path} with a key for another group, body ${junk.name} → 403`, async () => {
        const res = await send({ key: scoped }, { ...route, raw: junk.raw, ...(junk.type ? { type: junk.type } : {}) });
        expect(res).toMatchObject({ status: 403, body: { code: 'forbidden' } });
      });
    }
  }
  for (const route of management) {
    for (const who of [{ name: 'a scoped key', key: true }, { name: 'a signed-in viewer', user: 'viewer' }]) {
      for (const junk of JUNK) {
        it(`${route.method} ${route.path} as ${who.name}, body ${junk.name} → 403`, async () => {
          const res = await send(who.key ? { key: scoped } : { user: who.user }, { ...route, raw: junk.raw, ...(junk.type ? { type: junk.type } : {}) });
          expect(res).toMatchObject({ status: 403, body: { code: 'forbidden' } });
        });
      }
    }
  }

  it('the site changed in nothing, and an admin with the same bodies gets the 400 (or 415) the body deserves', async () => {
    const site = await call(svc.url, 'GET', '/api/sites/team/app', { key: admin });
    expect(site).toMatchObject({ status: 200, body: { title: 'App' } });
    for (const route of [...ingest.slice(0, 2), ...management.filter((r) => ['POST /api/keys', 'POST /api/webhooks', 'PATCH /api/sites/team/app'].includes(`${r.method} ${r.path}`))]) {
      const res = await send({ key: admin }, { ...route, raw: JUNK[1]!.raw });
      expect(res.status, `${route.method} ${route.path}`).toBe(400);
      expect((await send({ key: admin }, { ...route, raw: JUNK[0]!.raw })).status).toBe(400);
      expect((await send({ key: admin }, { ...route, raw: JUNK[2]!.raw, type: 'text/plain' })).status).toBe(415);
    }
  });

  it('a malformed path is still 400 for anyone: the target is read before it is authorized', async () => {
    for (const path of ['/ingest/sites/Team/app', '/ingest/sites/team//app/rollback']) {
      expect((await send({ key: scoped }, { method: path.endsWith('rollback') ? 'POST' : 'PATCH', path, raw: JUNK[0]!.raw })).status).toBe(400);
    }
  });

  it('a publish names its target in its body: a key without publish there gets 403 even when the rest of the meta is wrong', async () => {
    const res = await publish(svc.url, scoped, { group: 'team', slug: 'app', title: 'x'.repeat(10_000), tags: ['Not A Tag!'] }, { index: '<p>x</p>' });
    expect(res).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  });
});
