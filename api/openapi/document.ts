import { z } from 'zod';
import { Connection, ConnectionsResponse } from '../../app/contract/connection.ts';
import { DeployCreated, DeployRequest } from '../../app/contract/deploy.ts';
import { ErrorBody } from '../../app/contract/errors.ts';
import { Activity, ActivityResponse } from '../../app/contract/activity.ts';
import { Actor, EventsResponse, SiteEventEntry } from '../../app/contract/events.ts';
import { CreatedWebhook, CreateWebhookBody, DeliveriesResponse, Delivery, Webhook, WebhooksResponse } from '../../app/contract/webhooks.ts';
import { FileNode } from '../../app/contract/file-tree.ts';
import { Grant, GrantRequest } from '../../app/contract/grant.ts';
import { APIKey, CreatedAPIKey, CreateKeyBody, KeysResponse } from '../../app/contract/key.ts';
import { Me } from '../../app/contract/me.ts';
import { GroupParam, SlugParam, SubgroupParam } from '../../app/contract/params.ts';
import { SitePatch } from '../../app/contract/patch.ts';
import { DeployPublished, PreviewsOrSite, Preview, PreviewChanges, PreviewForm, PreviewMetaInput, PreviewResult, PreviewsResponse } from '../../app/contract/preview.ts';
import { PublishForm, PublishMeta, PublishResult } from '../../app/contract/publish.ts';
import { Revision, RevisionsResponse } from '../../app/contract/revision.ts';
import { RollbackBody } from '../../app/contract/rollback.ts';
import { Site, SitesResponse, TrashResponse, TreeNode } from '../../app/contract/site.ts';
import { ERROR_STATUSES, OPERATIONS, TAGS, type Body, type ErrorStatus, type Operation, type Reply } from './operations.ts';

type Json = Record<string, unknown>;

/**
 * Named schemas (`#/components/schemas/…`). Responses are converted as zod outputs, request
 * bodies as zod inputs (what a client may send); a schema an operation uses for a body or a
 * reply must be named here, so every one of them is a reusable component.
 */
const RESPONSE_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  Site,
  TreeNode,
  SitesResponse,
  TrashResponse,
  Revision,
  RevisionsResponse,
  FileNode,
  Grant,
  APIKey,
  CreatedAPIKey,
  KeysResponse,
  Connection,
  ConnectionsResponse,
  Me,
  Actor,
  SiteEvent: SiteEventEntry,
  EventsResponse,
  PublishResult,
  Preview,
  PreviewChanges,
  PreviewsResponse,
  PreviewsOrSite,
  PreviewResult,
  DeployPublished,
  DeployCreated,
  Activity,
  ActivityResponse,
  Webhook,
  CreatedWebhook,
  WebhooksResponse,
  Delivery,
  DeliveriesResponse,
  Error: ErrorBody,
};
const REQUEST_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  PublishMeta,
  PublishForm,
  PreviewMeta: PreviewMetaInput,
  PreviewForm,
  SitePatch,
  RollbackBody,
  GrantRequest,
  CreateKeyBody,
  DeployRequest,
  CreateWebhookBody,
};

const SCHEMA_REF = (id: string) => `#/components/schemas/${id}`;

/** Converts a registry of named schemas; `$schema`/`$id` go (the document sets the dialect). */
function convert(named: Readonly<Record<string, z.ZodType>>, io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io, uri: SCHEMA_REF, target: 'draft-2020-12' });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Json;
      return [id, rest];
    }),
  );
}

/** A schema outside the components (parameters): inlined, its description lifted to the parameter. */
function inline(schema: z.ZodType): { schema: Json; description?: string } {
  const { $schema: _s, description, ...rest } = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12' }) as Json;
  return { schema: rest, ...(typeof description === 'string' ? { description } : {}) };
}

const SITE_DEPTHS: readonly { suffix: string; path: string; params: Readonly<Record<string, z.ZodType>> }[] = [
  { suffix: '', path: '{slug}', params: { slug: SlugParam } },
  { suffix: 'InGroup', path: '{group}/{slug}', params: { group: GroupParam, slug: SlugParam } },
  { suffix: 'InSubgroup', path: '{group}/{subgroup}/{slug}', params: { group: GroupParam, subgroup: SubgroupParam, slug: SlugParam } },
];

/** `{site}` spelled once per depth (spec §13 allows this or one slash-separated parameter). */
function expand(op: Operation): { id: string; path: string; params: Readonly<Record<string, z.ZodType>> }[] {
  if (!op.path.includes('{site}')) return [{ id: op.id, path: op.path, params: op.params ?? {} }];
  return SITE_DEPTHS.map((d) => ({ id: `${op.id}${d.suffix}`, path: op.path.replace('{site}', d.path), params: { ...d.params, ...op.params } }));
}

function parameters(path: string, params: Readonly<Record<string, z.ZodType>>, query: z.ZodObject | undefined): Json[] {
  const out: Json[] = [];
  for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) {
    const schema = params[name];
    if (!schema) throw new Error(`openapi: no schema for path parameter {${name}} of ${path}`);
    out.push({ name, in: 'path', required: true, ...inline(schema) });
  }
  for (const name of Object.keys(params)) {
    if (!path.includes(`{${name}}`)) throw new Error(`openapi: parameter ${name} is not in ${path}`);
  }
  for (const [name, schema] of Object.entries(query?.shape ?? {})) {
    const required = !(schema as z.ZodType).safeParse(undefined).success;
    out.push({ name, in: 'query', required, ...inline(schema as z.ZodType) });
  }
  return out;
}

function named(schema: z.ZodType, names: ReadonlyMap<z.ZodType, string>, what: string): Json {
  const id = names.get(schema);
  if (!id) throw new Error(`openapi: ${what} uses a schema that has no component name`);
  return { $ref: SCHEMA_REF(id) };
}

function requestBody(body: Body, names: ReadonlyMap<z.ZodType, string>, what: string): Json {
  if (body.kind === 'json') {
    return { description: body.description, required: body.required, content: { 'application/json': { schema: named(body.schema, names, what) } } };
  }
  if (body.kind === 'binary') return { description: body.description, required: true, content: Object.fromEntries(body.types.map((type) => [type, {}])) };
  const encoding = Object.fromEntries(Object.entries(body.encoding).map(([part, contentType]) => [part, { contentType }]));
  return { description: body.description, required: true, content: { 'multipart/form-data': { schema: named(body.schema, names, what), encoding } } };
}

function reply(r: Reply, names: ReadonlyMap<z.ZodType, string>, what: string): Json {
  switch (r.kind) {
    case 'json':
      return { description: r.description, content: { 'application/json': { schema: names.has(r.schema) ? named(r.schema, names, what) : inline(r.schema).schema } } };
    case 'binary': {
      const headers = Object.fromEntries(Object.entries(r.headers ?? {}).map(([name, h]) => [name, { description: h.description, schema: inline(h.schema).schema }]));
      // OpenAPI 3.1: binary content is described by its media type alone (no schema).
      const content = Object.fromEntries(r.types.map((type) => [type, {}]));
      return { description: r.description, ...(r.headers ? { headers } : {}), content };
    }
    case 'empty':
      return { description: r.description };
    default: {
      const never: never = r;
      return never;
    }
  }
}

const SECURITY: Readonly<Record<Operation['auth'], Json[]>> = {
  none: [],
  key: [{ apiKey: [] }],
  user: [{ apiKey: [] }, { forwardAuth: [] }],
  admin: [{ apiKey: [] }, { forwardAuth: [] }],
};

/** Every operation may answer 400: a malformed request line is refused before any route runs (spec §2). */
const ALWAYS: readonly ErrorStatus[] = [400];

export type OpenApiOptions = {
  /** The identity header the instance honours (`SITES_FORWARD_AUTH_HEADER`); default `Remote-User`. */
  readonly forwardAuthHeader?: string;
  /** Whether the MCP connector runs (`SITES_MCP_ENABLED`); without it `/api/mcp/…` is not served. Default true. */
  readonly mcpEnabled?: boolean;
};

export type OpenApiDocument = Json & { openapi: '3.1.0'; paths: Record<string, Record<string, Json>>; components: Json };

/**
 * The OpenAPI 3.1 document of every `/ingest` and `/api` operation (spec §13), generated from
 * the operation registry and the zod schemas the routes validate with (zod's own JSON Schema
 * output, draft 2020-12, which is OpenAPI 3.1's dialect).
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const responses = convert(RESPONSE_SCHEMAS, 'output');
  const requests = convert(REQUEST_SCHEMAS, 'input');
  for (const id of Object.keys(requests)) {
    if (id in responses && JSON.stringify(requests[id]) !== JSON.stringify(responses[id])) throw new Error(`openapi: ${id} differs as a request and a response`);
  }
  const names = new Map<z.ZodType, string>(Object.entries({ ...RESPONSE_SCHEMAS, ...REQUEST_SCHEMAS }).map(([id, s]) => [s, id]));

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of OPERATIONS) {
    if (op.tag === 'connections' && options.mcpEnabled === false) continue;
    for (const variant of expand(op)) {
      const what = `${op.method.toUpperCase()} ${variant.path}`;
      const statuses = [...new Set<ErrorStatus>([...ALWAYS, ...(op.auth === 'none' ? [] : ([401] as const)), ...op.errors])].sort((a, b) => a - b);
      const params = parameters(variant.path, variant.params, op.query);
      const operation: Json = {
        operationId: variant.id,
        tags: [op.tag],
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        security: SECURITY[op.auth],
        ...(params.length ? { parameters: params } : {}),
        ...(op.body ? { requestBody: requestBody(op.body, names, what) } : {}),
        responses: {
          [String(op.ok.status)]: reply(op.ok.reply, names, what),
          ...Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/${ERROR_STATUSES[s].name}` }])),
        },
      };
      const item = (paths[variant.path] ??= {});
      if (item[op.method]) throw new Error(`openapi: ${what} is described twice`);
      item[op.method] = operation;
    }
  }

  const errorResponses = Object.fromEntries(
    Object.values(ERROR_STATUSES).map(({ name, description }) => [name, { description, content: { 'application/json': { schema: { $ref: SCHEMA_REF('Error') } } } }]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sites API',
      version: '1.0.0',
      description:
        'The ingest plane (`/ingest`, API keys only) and the management API (`/api`) of the site-publishing service. ' +
        'A site path of 1–3 labels is spelled once per depth: `{slug}`, `{group}/{slug}`, `{group}/{subgroup}/{slug}`. ' +
        'Every error is `{"error": "<sentence>", "code": "<code>"}`.',
    },
    servers: [{ url: '/' }],
    tags: Object.entries(TAGS)
      .filter(([name]) => name !== 'connections' || options.mcpEnabled !== false)
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ...responses, ...requests },
      responses: errorResponses,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'key_<base64url of 32 random bytes>', description: 'An API key: admin, or grants of capabilities on targets.' },
        forwardAuth: {
          type: 'apiKey',
          in: 'header',
          name: options.forwardAuthHeader ?? 'Remote-User',
          description: 'The signed-in user, set by the sign-in proxy; honoured only from SITES_TRUSTED_PROXIES (management plane only).',
        },
      },
    },
  };
}
