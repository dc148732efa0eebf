/**
 * Publishing a folder from the browser through the incremental deploy protocol (spec §10,
 * on the management plane as `/api/deploys…`): the files are hashed here with SubtleCrypto,
 * the manifest of digests goes first, and only the contents the site does not hold yet are
 * uploaded, so a new version of a large site sends what changed.
 */
import { ApiError } from './api.ts';
import type { PublishResult } from './types.ts';

/** A file of the folder and its path inside it (`css/site.css`). */
export type FolderFile = { readonly path: string; readonly file: File };

/** Files hashed at once: each is read whole for SubtleCrypto, so a few at a time bound the memory. */
const HASH_CONCURRENCY = 4;
/** Uploads at once: one upload's round trip hides behind the others'. */
const UPLOAD_CONCURRENCY = 4;

/**
 * The files of what was dropped. A folder is read recursively (`webkitGetAsEntry`, the one
 * way a drop hands over folders); one dropped folder is the site itself, so its own name is
 * not part of the paths, as `sites publish dist` publishes the contents of dist. Undefined
 * when no folder was dropped (a single file is an archive or a page, published as before).
 */
export function droppedFolder(items: DataTransferItemList): Promise<{ name: string; files: FolderFile[] }> | undefined {
  // The entries must be taken while the drop event runs: the list is emptied once it returns.
  const entries = [...items].map((i) => (i.kind === 'file' ? i.webkitGetAsEntry() : null)).filter((e): e is FileSystemEntry => e !== null);
  if (!entries.some((e) => e.isDirectory)) return undefined;
  return (async () => {
    const out: FolderFile[] = [];
    if (entries.length === 1) await walk(entries[0] as FileSystemDirectoryEntry, '', out);
    else for (const e of entries) await collect(e, '', out);
    return { name: entries.length === 1 ? entries[0]!.name : `${entries.length} items`, files: out };
  })();
}

/** The files of a folder chosen with `<input webkitdirectory>`: paths relative to that folder. */
export function chosenFolder(files: FileList): { name: string; files: FolderFile[] } {
  const list = [...files];
  const name = list[0]?.webkitRelativePath.split('/')[0] ?? 'folder';
  return { name, files: list.map((file) => ({ path: file.webkitRelativePath.split('/').slice(1).join('/') || file.name, file })) };
}

async function collect(entry: FileSystemEntry, prefix: string, out: FolderFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: prefix + entry.name, file });
  } else if (entry.isDirectory) {
    await walk(entry as FileSystemDirectoryEntry, `${prefix}${entry.name}/`, out);
  }
}

async function walk(dir: FileSystemDirectoryEntry, prefix: string, out: FolderFile[]): Promise<void> {
  const reader = dir.createReader();
  // readEntries answers in batches (100 in Chromium) until it answers none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return;
    for (const e of batch) await collect(e, prefix, out);
  }
}

/** The SHA-256 of a file, hex, as the deploy protocol names contents. */
export async function sha256Hex(file: Blob): Promise<string> {
  if (!crypto.subtle) {
    throw new ApiError(0, 'insecure', 'This page is not served over HTTPS, so the browser offers no hashing: upload a .zip or .tar.gz archive instead, or open the portal over HTTPS.');
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Runs `fn` over `items` with at most `limit` at once, in order of start. */
async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>, signal: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (signal.aborted) throw new ApiError(0, 'aborted', 'The upload was cancelled.');
      await fn(items[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export type FolderProgress =
  | { phase: 'hashing'; done: number; total: number }
  | { phase: 'uploading'; sentBytes: number; totalBytes: number; files: number }
  | { phase: 'publishing' };

export type FolderOutcome = { result: PublishResult; files: number; uploadedFiles: number; uploadedBytes: number };

async function json<T>(method: string, url: string, body: unknown | undefined): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached.');
  }
  const parsed = (await res.json().catch(() => ({}))) as { error?: string; code?: string };
  if (!res.ok) throw new ApiError(res.status, parsed.code ?? 'http_error', parsed.error ?? `${res.status} ${res.statusText}`);
  return parsed as T;
}

/** PUTs one content with XMLHttpRequest, which (unlike fetch) reports upload progress. */
function put(url: string, file: File, onBytes: (sent: number) => void, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    signal.addEventListener('abort', abort, { once: true });
    xhr.upload.onprogress = (e) => onBytes(e.loaded);
    xhr.onload = () => {
      signal.removeEventListener('abort', abort);
      if (xhr.status === 204 || (xhr.status >= 200 && xhr.status < 300)) return resolve();
      let body: { error?: string; code?: string } = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: the status says it
      }
      reject(new ApiError(xhr.status, body.code ?? 'http_error', body.error ?? `${xhr.status} ${xhr.statusText}`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The server could not be reached.'));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'));
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.send(file);
  });
}

/**
 * Publishes the folder to the site named by `meta` (the publish meta of spec §4): hashes
 * every file, opens a deploy with the manifest, uploads each content the site lacks once,
 * and publishes. A folder without `index.html` at its top is refused before anything is sent.
 */
export async function publishFolder(
  meta: Record<string, unknown>,
  files: readonly FolderFile[],
  onProgress: (p: FolderProgress) => void,
  signal: AbortSignal,
): Promise<FolderOutcome> {
  if (!files.some((f) => f.path === 'index.html')) {
    throw new ApiError(400, 'invalid', 'The folder has no index.html at its top (the site’s home page): drop the folder that holds it.');
  }
  const digests = new Map<string, string>(); // path → digest
  const byDigest = new Map<string, File>();
  let hashed = 0;
  onProgress({ phase: 'hashing', done: 0, total: files.length });
  await eachLimit(
    files,
    HASH_CONCURRENCY,
    async (f) => {
      const digest = await sha256Hex(f.file);
      digests.set(f.path, digest);
      byDigest.set(digest, f.file);
      onProgress({ phase: 'hashing', done: ++hashed, total: files.length });
    },
    signal,
  );
  const manifest = Object.fromEntries([...digests].sort(([a], [b]) => (a < b ? -1 : 1)));
  const deploy = await json<{ id: string; required: string[] }>('POST', '/api/deploys', { meta, files: manifest });
  const required = deploy.required.map((d) => ({ digest: d, file: byDigest.get(d)! })).filter((x) => x.file);
  const totalBytes = required.reduce((n, x) => n + x.file.size, 0);
  const sent = new Map<string, number>();
  const report = () => onProgress({ phase: 'uploading', sentBytes: [...sent.values()].reduce((a, b) => a + b, 0), totalBytes, files: required.length });
  report();
  await eachLimit(
    required,
    UPLOAD_CONCURRENCY,
    async ({ digest, file }) => {
      await put(`/api/deploys/${encodeURIComponent(deploy.id)}/files/${digest}`, file, (n) => (sent.set(digest, n), report()), signal);
      sent.set(digest, file.size);
      report();
    },
    signal,
  );
  onProgress({ phase: 'publishing' });
  const result = await json<PublishResult>('POST', `/api/deploys/${encodeURIComponent(deploy.id)}/publish`, undefined);
  return { result, files: files.length, uploadedFiles: required.length, uploadedBytes: totalBytes };
}
