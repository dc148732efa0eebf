/**
 * `GET /api/openapi.json` (spec §13): a valid OpenAPI 3.1 document, served without
 * authentication, that describes every `/ingest` and `/api` route the routers register, and
 * nothing they do not. (Every response of the other HTTP tests is validated against it by
 * `call()` in test/support/http.ts.)
 */
import Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiContext } from '../../api/context.ts';
import { activityRouter } from '../../api/activity.ts';
import { auditRouter } from '../../api/audit.ts';
import { webhooksRouter } from '../../api/webhooks.ts';
import { deploysRouter } from '../../api/deploys.ts';
import { domainsRouter } from '../../api/domains.ts';
import { ingestRouter } from '../../api/ingest.ts';
import { keysRouter } from '../../api/keys.ts';
import { managementRouter } from '../../api/management.ts';
import { buildOpenApiDocument } from '../../api/openapi/document.ts';
import { isLabel, RESERVED_SLUGS } from '../../domain/paths.ts';
import { mountConnectionsApi } from '../../mcp/sites/connections-api.ts';
import { startService, type RunningService } from '../support/service.ts';

const doc = buildOpenApiDocument();
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Every route of the apex's /ingest and /api routers, in the order `apexApp` mounts them, and the MCP connections API. */
function registeredRoutes(): { method: string; regexp: RegExp; path: string }[] {
  const api = {} as ApiContext; // routes only close over it; nothing runs at registration
  const mcp = new Router();
  mountConnectionsApi(mcp, api);
  const routes = [];
  for (const router of [ingestRouter(api), deploysRouter(api), keysRouter(api), webhooksRouter(api), activityRouter(api), auditRouter(api), domainsRouter(api), managementRouter(api), mcp]) {
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue; // koa answers HEAD with the GET route
        routes.push({ method: method.toLowerCase(), regexp: layer.regexp, path: String(layer.path) });
      }
    }
  }
  return routes;
}

/** A concrete request path for a template: each parameter replaced by a value its schema accepts. */
function example(template: string): string {
  const values: Record<string, string> = { slug: 'app', group: 'docs', subgroup: 'sub', rev: 'current', a: 'current', b: '20261121T101500.123456789Z', id: '7', delivery: 'msg_1', name: 'pr-42', sha256: 'a'.repeat(64), domain: 'docs.example.com' };
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no example value for {${name}}`);
    return values[name]!;
  });
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ method, path, op: op as Record<string, any> })),
);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('its schemas are valid JSON Schema 2020-12 and every $ref resolves', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false, allErrors: true });
    addFormats(ajv);
    ajv.addKeyword('components'); // where OpenAPI keeps the schemas: an annotation to JSON Schema
    ajv.addSchema({ $id: 'https://sites.invalid/openapi.json', components: doc.components });
    for (const name of Object.keys((doc.components as any).schemas)) {
      expect(() => ajv.compile({ $ref: `https://sites.invalid/openapi.json#/components/schemas/${name}` }), name).not.toThrow();
    }
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const target = ref.slice(8, -1).slice(2).split('/').reduce<any>((node, part) => node?.[part.replace(/~1/g, '/')], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('describes every /ingest and /api route the routers register, and no route they do not', () => {
    const routes = registeredRoutes();
    expect(routes.length).toBeGreaterThan(20);
    // The route that serves each documented operation: the first registered one that matches.
    const served = new Set<(typeof routes)[number]>();
    for (const { method, path } of operations) {
      const route = routes.find((r) => r.method === method && r.regexp.test(example(path)));
      expect(route, `${method.toUpperCase()} ${path} is documented but no route serves it`).toBeDefined();
      served.add(route!);
    }
    const undocumented = routes.filter((r) => !served.has(r)).map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(undocumented, 'routes without an operation in api/openapi/operations.ts').toEqual([]);
  });

  it('spells a site path once per depth, with parameters that are labels', () => {
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/sites/{slug}', '/api/sites/{group}/{slug}', '/api/sites/{group}/{subgroup}/{slug}']));
    const params = doc.paths['/api/sites/{group}/{subgroup}/{slug}']!.get!.parameters as { name: string; schema: object; description: string }[];
    expect(params.map((p) => p.name)).toEqual(['group', 'subgroup', 'slug']);
    const ajv = new Ajv2020({ strict: false });
    const [group, , slug] = params.map((p) => ajv.compile(p.schema));
    for (const label of ['a', 'app', 'pr-6', 'a1-b2', 'x'.repeat(63)]) {
      expect(isLabel(label) && group!(label) && slug!(label), label).toBe(true);
    }
    for (const label of ['-a', 'a-', 'A', 'a_b', 'a.b', '', 'x'.repeat(64)]) expect(isLabel(label) || group!(label) || slug!(label), label).toBe(false);
    for (const word of RESERVED_SLUGS) expect([group!(word), slug!(word)], word).toEqual([true, false]);
    expect(params[2]!.description).toContain([...RESERVED_SLUGS].join(', '));
  });

  it('every operation has an id, a summary, a success response and the {error, code} shape for its errors', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toBeTypeOf('string');
      expect(ids.has(op.operationId), `${where}: duplicate operationId`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, where).toBeTruthy();
      const statuses = Object.keys(op.responses);
      expect(statuses.some((s) => /^2/.test(s)), where).toBe(true);
      for (const status of statuses.filter((s) => Number(s) >= 400)) expect(op.responses[status].$ref, `${where} ${status}`).toMatch(/^#\/components\/responses\//);
      if (path.startsWith('/ingest')) expect(op.security, where).toEqual([{ apiKey: [] }]);
    }
    expect((doc.components as any).schemas.Error).toMatchObject({ required: ['error', 'code'] });
  });

  it('describes multipart publish bodies, binary responses and 204s', () => {
    const publish = doc.paths['/ingest/sites']!.post as any;
    expect(Object.keys(publish.requestBody.content)).toEqual(['multipart/form-data']);
    expect(publish.requestBody.content['multipart/form-data'].encoding.meta).toEqual({ contentType: 'application/json' });
    expect(Object.keys((doc.paths['/api/sites/{slug}/favicon']!.get as any).responses['200'].content)).toContain('image/svg+xml');
    expect(Object.keys((doc.paths['/api/sites/{group}/{slug}/revisions/{rev}/archive']!.get as any).responses['200'].content)).toEqual(['application/zip']);
    expect((doc.paths['/api/keys/{id}']!.delete as any).responses['204']).toEqual({ description: 'revoked' });
    expect((doc.paths['/api/keys']!.post as any).responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreatedAPIKey' });
  });
});

describe('GET /api/openapi.json', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ env: { SITES_FORWARD_AUTH_HEADER: 'X-Auth-User' } });
  });
  afterAll(() => svc?.stop());

  it('is served without authentication, and is the generated document (naming the configured identity header)', async () => {
    const res = await fetch(`${svc.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const served = await res.json();
    const header: string = served.components.securitySchemes.forwardAuth.name;
    expect(header.toLowerCase()).toBe('x-auth-user');
    expect(served).toEqual(buildOpenApiDocument({ forwardAuthHeader: header }));
  });

  it('leaves out the MCP connections API when the connector is off', () => {
    const off = buildOpenApiDocument({ mcpEnabled: false });
    expect(Object.keys(off.paths).filter((p) => p.startsWith('/api/mcp'))).toEqual([]);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/mcp'))).toEqual(['/api/mcp/connections', '/api/mcp/connections/{id}']);
  });
});
