import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument, type OpenApiDocument } from '../../api/openapi/document.ts';

/** Small JSON helpers for the HTTP tests. Every response `call()` sees is checked against the OpenAPI document. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; user?: string; body?: unknown; raw?: string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.user) headers['Remote-User'] = opts.user;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  } else if (opts.raw !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = opts.raw;
  }
  const url = new URL(path, base);
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  checkResponse(method, url.pathname, { status: res.status, type: res.headers.get('content-type') ?? '', text, body: parsed });
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function text(url: string): Promise<string> {
  const res = await fetch(url);
  return `${res.status} ${await res.text()}`;
}

// ---------------------------------------------------------------------------------------------
// Responses against the OpenAPI document: built by importing the generator (no HTTP), once per
// test process; each JSON body is validated (ajv, draft 2020-12) against the schema the document
// gives for that operation and status, so a route and its description cannot drift apart.

type Json = Record<string, any>;
type Seen = { status: number; type: string; text: string; body: unknown };
type Template = { path: string; regexp: RegExp; params: number; item: Json };

const DOC_ID = 'https://sites.invalid/openapi.json';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly templates: Template[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
    this.templates = Object.entries(doc.paths).map(([path, item]) => ({
      path,
      regexp: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '([^/]+)')}$`),
      params: (path.match(/\{/g) ?? []).length,
      item,
    }));
  }

  /** The operation the router serves for this request: the matching template with the fewest parameters. */
  private operation(method: string, pathname: string): { path: string; op: Json } | undefined {
    const m = method.toLowerCase();
    const found = this.templates.filter((t) => t.item[m] && t.regexp.test(pathname)).sort((a, b) => a.params - b.params)[0];
    return found && { path: found.path, op: found.item[m] };
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.validators.get(pointer);
    if (!v) this.validators.set(pointer, (v = this.ajv.compile({ $ref: `${DOC_ID}#${pointer}` })));
    return v;
  }

  private resolve(response: Json): Json {
    const ref = response.$ref as string | undefined;
    if (!ref) return response;
    return ref.slice(2).split('/').reduce<Json>((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }

  check(method: string, pathname: string, seen: Seen): void {
    if (!/^\/(?:api|ingest)(?:\/|$)/.test(pathname) || method.toUpperCase() === 'HEAD') return;
    const isJson = /^application\/(?:[\w.+-]*\+)?json\b/i.test(seen.type) && seen.text !== '';
    const where = `${method.toUpperCase()} ${pathname} → ${seen.status}`;
    const found = this.operation(method, pathname);
    if (!found) {
      // No operation (an unknown path or method): an error body must still be the error shape.
      if (isJson && seen.status >= 400) this.validate('/components/schemas/Error', seen.body, where);
      return;
    }
    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const base = `/paths/${escape(found.path)}/${method.toLowerCase()}/responses/${seen.status}`;
    const documented = found.op.responses?.[String(seen.status)];
    if (!documented) {
      throw new Error(`${where}: the OpenAPI document lists no ${seen.status} for ${method.toUpperCase()} ${found.path} (body: ${seen.text.slice(0, 300)})`);
    }
    const response = this.resolve(documented);
    const content = (response.content ?? {}) as Json;
    if (isJson) {
      if (!content['application/json']) throw new Error(`${where}: answered JSON, but the document describes ${Object.keys(content).join(', ') || 'no body'} (${seen.text.slice(0, 300)})`);
      const pointer = documented.$ref ? `${(documented.$ref as string).slice(1)}/content/application~1json/schema` : `${base}/content/application~1json/schema`;
      this.validate(pointer, seen.body, `${where} (${found.path})`);
      return;
    }
    if (seen.text === '') {
      if (Object.keys(content).length > 0 && seen.status !== 200) throw new Error(`${where}: no body, but the document describes ${Object.keys(content).join(', ')}`);
      return;
    }
    const essence = seen.type.split(';')[0]!.trim().toLowerCase();
    if (!content[essence] && !content['*/*']) throw new Error(`${where}: answered ${seen.type || 'no type'}, but the document describes ${Object.keys(content).join(', ') || 'no body'}`);
  }

  private validate(pointer: string, value: unknown, where: string): void {
    const validate = this.validator(pointer);
    if (validate(value)) return;
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    throw new Error(`${where}: the response does not match the OpenAPI document (${pointer}):\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(value).slice(0, 1000)}`);
  }
}

let contract: ResponseContract | undefined;

/** Throws when a response of `/api` or `/ingest` is not what the OpenAPI document says. */
export function checkResponse(method: string, pathname: string, seen: Seen): void {
  contract ??= new ResponseContract(buildOpenApiDocument());
  contract.check(method, pathname, seen);
}
