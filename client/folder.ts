import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ClientError } from './errors.ts';

export type SiteFile = {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  /** size:mtimeNs:ctimeNs:ino: what the digest cache compares (client/digest-cache.ts). */
  readonly stamp: string;
};

/**
 * The regular files under `dir`. Synchronous on purpose: a command that does one thing at a
 * time lists 10,000 files several times faster this way than through the thread pool.
 */
function walk(dir: string, root: string, files: SiteFile[], skipped: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, root, files, skipped);
    else if (entry.isFile()) {
      const info = statSync(full, { bigint: true });
      const stamp = `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`;
      files.push({ path: full, name: relative(root, full).split(sep).join('/'), size: Number(info.size), stamp });
    }
    else skipped.push(full); // links, sockets…: the service refuses links, so they are not sent
  }
}

/**
 * The files of the folder to publish, checked before anything is sent: a folder that
 * does not exist or has no index.html at its top fails here in one line, instead of
 * after an upload, with a message about a folder the user never named.
 */
export async function siteFiles(dir: string, warn: (line: string) => void = () => undefined): Promise<SiteFile[]> {
  const info = await stat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new ClientError(`folder ${dir} does not exist`);
    throw err;
  });
  if (!info.isDirectory()) throw new ClientError(`${dir} is not a folder (publish the folder that holds index.html)`);
  const index = await stat(join(dir, 'index.html')).catch(() => undefined);
  if (!index?.isFile()) throw new ClientError(`${dir} has no index.html at its top (the site's home page; publish the folder that holds it)`);
  const files: SiteFile[] = [];
  const skipped: string[] = [];
  walk(dir, dir, files, skipped);
  if (skipped.length) warn(`skipped ${skipped.length === 1 ? skipped[0] : `${skipped.length} links and special files`} (only regular files are published)`);
  return files;
}
