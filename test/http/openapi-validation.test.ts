/**
 * The routes validate their inputs with the schemas the OpenAPI document is generated from:
 * a failure is 400 `{"error": "<a sentence naming the field>", "code": "invalid"}`, and the
 * domain's own rules still hold behind them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, checkResponse } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
const asAdmin = { user: 'admin' };

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  expect((await publish(svc.url, admin, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>app</p>' })).status).toBe(200);
});
afterAll(() => svc?.stop());

const invalid = (error: string) => ({ status: 400, body: { error, code: 'invalid' } });
const pick = (res: { status: number; body: any }) => ({ status: res.status, body: res.body });

/** A multipart publish whose response is checked against the document like `call()`'s. */
async function publishMeta(meta: string): Promise<{ status: number; body: unknown }> {
  const form = new FormData();
  form.append('meta', meta);
  form.append('index', new Blob(['<p>x</p>'], { type: 'text/html' }), 'index.html');
  const res = await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${admin}` }, body: form });
  const text = await res.text();
  const body = JSON.parse(text) as unknown;
  checkResponse('POST', '/ingest/sites', { status: res.status, type: res.headers.get('content-type') ?? '', text, body });
  return { status: res.status, body };
}

describe('GET /api/sites query', () => {
  it('refuses bad parameters, naming them', async () => {
    const cases: [string, string][] = [
      ['limit=501', 'limit must be between 1 and 500'],
      ['limit=0', 'limit must be between 1 and 500'],
      ['limit=ten', 'limit must be a whole number'],
      ['offset=-1', 'offset must be a whole number'],
      ['sort=size', 'sort must be one of date, title, slug'],
      ['hidden=yes', 'hidden must be true or false'],
      ['group=Docs', 'group "Docs" is not a group path'],
      ['group=a/b/c/d', 'group "a/b/c/d" is not a group path'],
      ['q=a&q=b', 'q was given more than once'],
    ];
    for (const [query, error] of cases) expect(pick(await call(svc.url, 'GET', `/api/sites?${query}`, asAdmin)), query).toEqual(invalid(error));
  });

  it('applies the defaults, and empty values count as absent', async () => {
    const res = await call(svc.url, 'GET', '/api/sites?limit=&offset=&sort=&hidden=&q=%20', asAdmin);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect((await call(svc.url, 'GET', '/api/sites?group=/docs/&limit=1&hidden=1', asAdmin)).body.sites).toHaveLength(1);
  });
});

describe('JSON bodies', () => {
  it('POST /api/keys: the shape is the schema’s, the rest the domain’s', async () => {
    const post = async (body: unknown) => pick(await call(svc.url, 'POST', '/api/keys', { ...asAdmin, body }));
    expect(await post([])).toEqual(invalid('the body must be a JSON object'));
    expect(await post({ admin: true })).toEqual(invalid('name is required'));
    expect(await post({ name: '  ', admin: true })).toEqual(invalid('name is required'));
    expect(await post({ name: 'ci', admin: 'yes' })).toEqual(invalid('admin must be true or false'));
    expect(await post({ name: 'ci', grants: {} })).toEqual(invalid('grants must be a list'));
    expect(await post({ name: 'ci', grants: [{ kind: 'team', target: 'docs', permissions: ['publish'] }] })).toEqual(invalid('grants[0].kind must be one of group, site'));
    expect(await post({ name: 'ci', grants: [{ kind: 'group', target: 'docs', permissions: ['deploy'] }] })).toEqual(
      invalid('grants[0].permissions[0] must be one of publish, unpublish, rollback, patch, purge, preview'),
    );
    expect(await post({ name: 'ci', grants: [{ kind: 'group', target: 'docs', permissions: [] }] })).toEqual(invalid('grants[0].permissions must not be empty'));
    // The domain's rules, behind the schema:
    expect((await post({ name: 'ci', grants: [{ kind: 'group', target: 'docs/', permissions: ['publish'] }] })).body.error).toMatch(/empty label/);
    expect(await post({ name: 'ci' })).toEqual(invalid('a key needs admin or at least one grant'));
    expect((await post({ name: 'ci', grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }], expires_at: '' })).status).toBe(201);
  });

  it('DELETE /api/keys/{id}: an id that is not a whole number is no such key', async () => {
    expect((await call(svc.url, 'DELETE', '/api/keys/0x10', asAdmin)).status).toBe(404);
    expect((await call(svc.url, 'DELETE', '/api/keys/0', asAdmin)).status).toBe(404);
  });

  it('PATCH a site: types and unknown fields', async () => {
    for (const base of ['/api/sites/docs/app', '/ingest/sites/docs/app']) {
      const opts = base.startsWith('/api') ? asAdmin : { key: admin };
      const patch = async (body: unknown) => pick(await call(svc.url, 'PATCH', base, { ...opts, body }));
      expect(await patch({ title: 5 }), base).toEqual(invalid('title must be a string'));
      expect(await patch({ title: null }), base).toEqual(invalid('title must be a string'));
      expect(await patch({ tags: 'a' }), base).toEqual(invalid('tags must be a list'));
      expect(await patch({ tags: ['a', 1] }), base).toEqual(invalid('tags[1] must be a string'));
      expect(await patch({ hidden: 'no' }), base).toEqual(invalid('hidden must be true or false'));
      expect(await patch({ colour: 'red' }), base).toEqual(invalid('unknown field "colour"'));
      expect(await patch('title'), base).toEqual(invalid('the body must be a JSON object'));
      expect(await patch({ description: null, tags: null }), base).toMatchObject({ status: 200, body: { description: '', tags: [] } });
    }
  });

  it('rollback: a revision id, "current", or nothing', async () => {
    const rollback = async (body: unknown) => pick(await call(svc.url, 'POST', '/api/sites/docs/app/rollback', { ...asAdmin, body }));
    const message = 'revision must be a revision id (YYYYMMDDTHHMMSS.nnnnnnnnnZ) or "current"';
    expect(await rollback({ revision: 'yesterday' })).toEqual(invalid(message));
    expect(await rollback({ revision: 7 })).toEqual(invalid(message));
    expect(await rollback([])).toEqual(invalid('the body must be a JSON object'));
    expect((await rollback({ revision: 'current' })).status).toBe(200);
    expect((await publish(svc.url, admin, { group: 'docs', slug: 'app' }, { index: '<p>app v2</p>' })).status).toBe(200);
    expect((await rollback({ revision: '20200101T000000.000000000Z' })).status).toBe(404);
    expect((await rollback(null)).status).toBe(200);
  });
});

describe('the publish meta part', () => {
  it('is checked with its schema, then by the domain', async () => {
    expect(await publishMeta('{')).toEqual(invalid('meta is not valid JSON'));
    expect(await publishMeta('[]')).toEqual(invalid('meta must be a JSON object'));
    expect(await publishMeta('{"group":""}')).toEqual(invalid('meta.slug is required'));
    expect(await publishMeta('{"slug":""}')).toEqual(invalid('meta.slug is required'));
    expect(await publishMeta('{"slug":5}')).toEqual(invalid('meta.slug must be a string'));
    expect(await publishMeta('{"group":7,"slug":"x"}')).toEqual(invalid('meta.group must be a string'));
    expect(await publishMeta('{"slug":"x","title":"X","tags":"a"}')).toEqual(invalid('meta.tags must be a list'));
    expect(await publishMeta('{"slug":"x","title":"X","hidden":1}')).toEqual(invalid('meta.hidden must be true or false'));
    expect(await publishMeta('{"slug":"x","title":null}')).toEqual(invalid('meta.title must be a string'));
    expect((await publishMeta('{"slug":"Bad","title":"X"}')).body).toMatchObject({ code: 'invalid', error: expect.stringMatching(/not a valid label/) });
    expect((await publishMeta('{"slug":"x","title":"X","extra":true}')).status).toBe(200);
  });
});

describe('the revision file query', () => {
  it('needs a path', async () => {
    for (const query of ['', '?path=', '?path=/']) {
      expect(pick(await call(svc.url, 'GET', `/api/sites/docs/app/revisions/current/file${query}`, asAdmin)), query).toEqual(invalid('path is required'));
    }
    expect((await call(svc.url, 'GET', '/api/sites/docs/app/revisions/current/file?path=/index.html', asAdmin)).status).toBe(200);
  });
});

describe('the MCP connections API', () => {
  it('answers the documented shapes, and checks ?revoked= with its schema', async () => {
    expect(pick(await call(svc.url, 'GET', '/api/mcp/connections', asAdmin))).toEqual({ status: 200, body: { connections: [] } });
    expect(pick(await call(svc.url, 'GET', '/api/mcp/connections?revoked=true', asAdmin))).toEqual({ status: 200, body: { connections: [] } });
    expect(pick(await call(svc.url, 'GET', '/api/mcp/connections?revoked=maybe', asAdmin))).toEqual(invalid('revoked must be true or false'));
    expect((await call(svc.url, 'DELETE', '/api/mcp/connections/nope', asAdmin)).status).toBe(404);
  });
});
