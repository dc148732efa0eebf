import { tarGz, type SiteFiles } from './publish.ts';
import { checkResponse } from './http.ts';

/** PUTs a preview like `curl -X PUT -F bundle=@site.tgz [-F meta=…] …/ingest/sites/{path}/previews/{name}`, checked against the OpenAPI document. */
export async function putPreview(
  base: string,
  key: string | undefined,
  site: string,
  name: string,
  bundle: { files?: SiteFiles; index?: string },
  meta?: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (bundle.index !== undefined) form.append('index', new Blob([bundle.index], { type: 'text/html' }), 'index.html');
  else form.append('bundle', new Blob([new Uint8Array(await tarGz(bundle.files ?? {}))]), 'site.tgz');
  // After the files: the meta part may come last, as the route reads it just before the switch.
  if (meta) form.append('meta', JSON.stringify(meta));
  const url = new URL(`/ingest/sites/${site}/previews/${name}`, base);
  const res = await fetch(url, { method: 'PUT', headers: key ? { Authorization: `Bearer ${key}` } : {}, body: form });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  checkResponse('PUT', url.pathname, { status: res.status, type: res.headers.get('content-type') ?? '', text, body });
  return { status: res.status, body };
}

/** `http://<variant>--<slug>.<group>.localhost:PORT/` for a site path and a preview name or `v<N>`. */
export function variantUrl(port: number, site: string, variant: string): string {
  const labels = site.split('/').reverse();
  labels[0] = `${variant}--${labels[0]}`;
  return `http://${labels.join('.')}.localhost:${port}/`;
}
