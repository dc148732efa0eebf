import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ClientError } from './errors.ts';
import { IGNORE_FILE, leaveOutRules, type LeaveOut } from './leave-out.ts';

export type SiteFile = {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  /** size:mtimeNs:ctimeNs:ino: what the digest cache compares (client/digest-cache.ts). */
  readonly stamp: string;
};

export type SiteFolder = {
  readonly files: SiteFile[];
  /** What the rules left out (client/leave-out.ts), folders with a trailing `/`, in walk order. */
  readonly leftOut: string[];
  readonly hasIgnoreFile: boolean;
};

type Walk = { readonly rules: LeaveOut; readonly files: SiteFile[]; readonly leftOut: string[]; readonly skipped: string[] };

/**
 * The regular files under `dir`. Synchronous on purpose: a command that does one thing at a
 * time lists 10,000 files several times faster this way than through the thread pool. A
 * folder that is left out is not walked (a stray node_modules/ costs nothing).
 */
function walk(dir: string, prefix: string, w: Walk): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const name = prefix + entry.name;
    const isFolder = entry.isDirectory();
    if (w.rules.leavesOut(name, isFolder)) {
      if (name !== IGNORE_FILE) w.leftOut.push(isFolder ? `${name}/` : name);
    } else if (isFolder) walk(full, `${name}/`, w);
    else if (entry.isFile()) {
      const info = statSync(full, { bigint: true });
      const stamp = `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`;
      w.files.push({ path: full, name, size: Number(info.size), stamp });
    }
    else w.skipped.push(full); // links, sockets…: the service refuses links, so they are not sent
  }
}

/**
 * The files of the folder to publish, checked before anything is sent: a folder that
 * does not exist or has no index.html at its top fails here in one line, instead of
 * after an upload, with a message about a folder the user never named.
 */
export async function siteFiles(dir: string, options: { includeDotfiles?: boolean; warn?: (line: string) => void } = {}): Promise<SiteFolder> {
  const info = await stat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new ClientError(`folder ${dir} does not exist`);
    throw err;
  });
  if (!info.isDirectory()) throw new ClientError(`${dir} is not a folder (publish the folder that holds index.html)`);
  const index = await stat(join(dir, 'index.html')).catch(() => undefined);
  if (!index?.isFile()) throw new ClientError(`${dir} has no index.html at its top (the site's home page; publish the folder that holds it)`);
  const rules = leaveOutRules(dir, options.includeDotfiles ?? false);
  const w: Walk = { rules, files: [], leftOut: [], skipped: [] };
  walk(dir, '', w);
  if (w.leftOut.includes('index.html')) throw new ClientError(`${join(dir, IGNORE_FILE)} leaves out index.html, the site's home page`);
  const warn = options.warn ?? (() => undefined);
  if (w.skipped.length) warn(`skipped ${w.skipped.length === 1 ? w.skipped[0] : `${w.skipped.length} links and special files`} (only regular files are published)`);
  return { files: w.files, leftOut: w.leftOut, hasIgnoreFile: rules.hasIgnoreFile };
}
