/** The portal's only door to the service: the management API under `/api/*`. */
import type { Activity, ActivityFilters, ActivityPage, ApiKey, Connection, Delivery, FileNode, Grant, Me, Preview, PublishResult, Revision, RevisionDiff, ServiceStorage, Site, SiteEvent, SiteList, SiteStorage, Webhook, WebhookType } from './types.ts';

/** A failed call: HTTP status (0 when the server could not be reached) and the API's error code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Encodes a site path (`docs/app`) for use in an API URL. */
export const enc = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

async function toError(res: Response): Promise<ApiError> {
  let body: { error?: string; code?: string } = {};
  try {
    body = await res.json();
  } catch {
    // not JSON (a proxy error page): fall back to the status text
  }
  return new ApiError(res.status, body.code ?? 'http_error', body.error ?? `${res.status} ${res.statusText}`);
}

async function call<T>(method: string, url: string, opts: { body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: opts.body === undefined ? { Accept: 'application/json' } : { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'network', 'The server could not be reached.');
  }
  if (!res.ok) throw await toError(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export type ListParams = { q?: string; tag?: string; group?: string; sort?: string; hidden?: boolean; limit?: number; offset?: number };

export const api = {
  me: (signal?: AbortSignal) => call<Me>('GET', '/api/me', { signal }),
  listSites(p: ListParams, signal?: AbortSignal): Promise<SiteList> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== '' && v !== false) qs.set(k, String(v));
    return call('GET', `/api/sites?${qs}`, { signal });
  },
  site: (path: string, signal?: AbortSignal) => call<Site>('GET', `/api/sites/${enc(path)}`, { signal }),
  revisions: (path: string, signal?: AbortSignal) =>
    call<{ revisions: Revision[] }>('GET', `/api/sites/${enc(path)}/revisions`, { signal }),
  files: (path: string, rev: string, signal?: AbortSignal) =>
    call<FileNode>('GET', `/api/sites/${enc(path)}/revisions/${encodeURIComponent(rev)}/files`, { signal }),
  fileUrl: (path: string, rev: string, file: string) =>
    `/api/sites/${enc(path)}/revisions/${encodeURIComponent(rev)}/file?path=${encodeURIComponent(file)}`,
  archiveUrl: (path: string, rev: string) => `/api/sites/${enc(path)}/revisions/${encodeURIComponent(rev)}/archive`,
  faviconUrl: (path: string) => `/api/sites/${enc(path)}/favicon`,
  diff: (path: string, from: string, to: string, signal?: AbortSignal) =>
    call<RevisionDiff>('GET', `/api/sites/${enc(path)}/revisions/${encodeURIComponent(from)}/diff/${encodeURIComponent(to)}`, { signal }),
  /** The kept revisions with what they add up to and what the store holds for them: the revisions list carries both figures. */
  siteStorage: (path: string, signal?: AbortSignal) => call<SiteStorage>('GET', `/api/sites/${enc(path)}/revisions`, { signal }),
  storage: (signal?: AbortSignal) => call<ServiceStorage>('GET', '/api/storage', { signal }),
  /** A revision's file as text, for the line diff (the caller checks the size first). */
  async fileText(path: string, rev: string, file: string, signal?: AbortSignal): Promise<string> {
    let res: Response;
    try {
      res = await fetch(api.fileUrl(path, rev, file), { credentials: 'same-origin', signal });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'network', 'The server could not be reached.');
    }
    if (!res.ok) throw await toError(res);
    return res.text();
  },
  events: (path: string, signal?: AbortSignal) =>
    call<{ events: SiteEvent[] }>('GET', `/api/sites/${enc(path)}/events`, { signal }),
  previews: (path: string, signal?: AbortSignal) => call<{ previews: Preview[] }>('GET', `/api/sites/${enc(path)}/previews`, { signal }),
  removePreview: (path: string, name: string) => call<void>('DELETE', `/api/sites/${enc(path)}/previews/${encodeURIComponent(name)}`),
  rollback: (path: string, revision: string) => call<Site>('POST', `/api/sites/${enc(path)}/rollback`, { body: { revision } }),
  patch: (path: string, patch: Record<string, unknown>) => call<Site>('PATCH', `/api/sites/${enc(path)}`, { body: patch }),
  unpublish: (path: string) => call<void>('DELETE', `/api/sites/${enc(path)}`),
  attachDomain: (path: string, domain: string) => call<Site>('PUT', `/api/sites/${enc(path)}/domains/${encodeURIComponent(domain)}`),
  detachDomain: (path: string, domain: string) => call<void>('DELETE', `/api/sites/${enc(path)}/domains/${encodeURIComponent(domain)}`),
  deleted: (signal?: AbortSignal) => call<{ sites: Site[]; count: number }>('GET', '/api/sites/deleted', { signal }),
  restore: (path: string) => call<Site>('POST', `/api/sites/deleted/${enc(path)}`),
  purge: (path: string) => call<void>('DELETE', `/api/sites/deleted/${enc(path)}`),
  /** Every key, the revoked ones too (with who revoked them when): the view shows them greyed. */
  keys: (signal?: AbortSignal) => call<{ keys: ApiKey[] }>('GET', '/api/keys?revoked=true', { signal }),
  createKey: (body: { name: string; admin?: boolean; grants?: Grant[]; expires_at?: string }) =>
    call<ApiKey & { key: string }>('POST', '/api/keys', { body }),
  revokeKey: (id: number) => call<void>('DELETE', `/api/keys/${id}`),
  /** Active connections and the revoked ones (the view hides those until asked). */
  connections: (signal?: AbortSignal) => call<{ connections: Connection[] }>('GET', '/api/mcp/connections?revoked=true', { signal }),
  revokeConnection: (id: string) => call<void>('DELETE', `/api/mcp/connections/${encodeURIComponent(id)}`),
  activity(filters: ActivityFilters & { cursor?: string; limit?: number }, signal?: AbortSignal): Promise<ActivityPage> {
    return call('GET', `/api/events?${activityQuery(filters)}`, { signal });
  },
  /** The whole matching history as JSON lines, oldest first (`Accept: application/x-ndjson`). */
  async activityExport(filters: ActivityFilters): Promise<Blob> {
    const res = await fetch(`/api/events?${activityQuery(filters)}`, { credentials: 'same-origin', headers: { Accept: 'application/x-ndjson' } }).catch(() => {
      throw new ApiError(0, 'network', 'The server could not be reached.');
    });
    if (!res.ok) throw await toError(res);
    return res.blob();
  },
  webhooks: (signal?: AbortSignal) => call<{ webhooks: Webhook[] }>('GET', '/api/webhooks', { signal }),
  createWebhook: (body: { url: string; events: WebhookType[]; target?: string; description?: string }) =>
    call<Webhook & { secret: string }>('POST', '/api/webhooks', { body }),
  deleteWebhook: (id: string) => call<void>('DELETE', `/api/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id: string, signal?: AbortSignal) => call<{ deliveries: Delivery[] }>('GET', `/api/webhooks/${encodeURIComponent(id)}/deliveries`, { signal }),
  redeliver: (id: string, delivery: string) =>
    call<Delivery>('POST', `/api/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(delivery)}/redeliver`),
};

/** The activity query string: only the filters that are set. */
export function activityQuery(filters: ActivityFilters & { cursor?: string; limit?: number }): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== '') qs.set(k, String(v));
  return qs.toString();
}


/**
 * Publishes through `POST /api/sites` with XMLHttpRequest, because fetch cannot
 * report upload progress. `onProgress` receives a fraction 0..1.
 */
export function uploadSite(
  meta: Record<string, unknown>,
  file: File,
  onProgress: (fraction: number) => void,
): { done: Promise<PublishResult>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const form = new FormData();
  form.append('meta', new Blob([JSON.stringify(meta)], { type: 'application/json' }));
  const isHtml = /\.html?$/i.test(file.name) || file.type === 'text/html';
  form.append(isHtml ? 'index' : 'bundle', file, file.name);
  const done = new Promise<PublishResult>((resolve, reject) => {
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: any = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // leave body empty
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as PublishResult);
      else reject(new ApiError(xhr.status, body.code ?? 'http_error', body.error ?? `${xhr.status} ${xhr.statusText}`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The server could not be reached.'));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'));
  });
  xhr.open('POST', '/api/sites');
  xhr.setRequestHeader('Accept', 'application/json');
  xhr.send(form);
  return { done, abort: () => xhr.abort() };
}

/** Words for an error, by status: what happened and what the person can do. */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return `Something went wrong: ${(err as Error)?.message ?? String(err)}`;
  switch (err.status) {
    case 0:
      return err.code === 'aborted' ? err.message : 'The server could not be reached (network down?). Check your connection and try again.';
    case 401:
      return 'You are not signed in. Open the portal through the sign-in proxy and try again. On your own machine, start the service with SITES_LOCAL_ADMIN=yourname to be signed in as an admin from this computer.';
    case 403:
      return `You are not allowed to do this: ${err.message}`;
    case 404:
      return `Not found: ${err.message}`;
    default:
      return err.message;
  }
}
