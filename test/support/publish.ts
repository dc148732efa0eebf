import { makeTarGz } from './archives.ts';
import { checkResponse } from './http.ts';

export type SiteFiles = Record<string, string | Buffer>;

/** POSTs a multipart publish like `curl -F meta=… -F bundle=@site.tgz`. */
export async function publish(
  base: string,
  key: string | undefined,
  meta: Record<string, unknown>,
  bundle: { files?: SiteFiles; archive?: Buffer; index?: string; filename?: string },
  path = '/ingest/sites',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('meta', JSON.stringify(meta));
  if (bundle.index !== undefined) form.append('index', new Blob([bundle.index], { type: 'text/html' }), 'index.html');
  else {
    const archive = bundle.archive ?? (await tarGz(bundle.files ?? {}));
    form.append('bundle', new Blob([new Uint8Array(archive)]), bundle.filename ?? 'site.tgz');
  }
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers },
    body: form,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  // Every publish answer the tests see must be what the OpenAPI document says.
  checkResponse('POST', new URL(path, base).pathname, { status: res.status, type: res.headers.get('content-type') ?? '', text, body });
  return { status: res.status, body };
}

export async function tarGz(files: SiteFiles): Promise<Buffer> {
  return makeTarGz(Object.entries(files).map(([name, content]) => ({ name, content: Buffer.isBuffer(content) ? content : Buffer.from(content) })) as never);
}
