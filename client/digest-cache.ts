import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Digests of a folder's files from the last publish, so that a republish hashes only what
 * changed (what git's index does for `git status`). An entry is used only when the file's
 * size, modification and change times (nanoseconds) and inode are all the same as when it
 * was hashed; the change time cannot be set back by hand, so rewriting a file always shows.
 * A file changed within two seconds before the run that hashed it started is hashed again
 * next time: a rewrite in the same clock tick could keep every time stamp ("racy git").
 *
 * It lives in `SITES_CACHE_DIR`, else `$XDG_CACHE_HOME/sites`, else `~/.cache/sites`, one file
 * per folder; `SITES_CACHE_DIR=off` turns it off. It is only ever a shortcut: unreadable,
 * unwritable or from another version, it is ignored, and every file is hashed.
 */
export type DigestCache = {
  /** The digest recorded for `name` with this stamp, if it can be trusted. */
  get(name: string, stamp: string): string | undefined;
  /** Records what was just hashed (or reused) for the next run. */
  set(name: string, stamp: string, digest: string): void;
  save(): void;
};

type CacheFile = { v: 1; writtenAtNs: string; files: Record<string, [stamp: string, digest: string]> };

/** Two seconds in nanoseconds: the racy-write margin. */
const RACY_NS = 2_000_000_000n;

export function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.SITES_CACHE_DIR === 'off') return undefined;
  if (env.SITES_CACHE_DIR) return env.SITES_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || (env.HOME || homedir() ? join(env.HOME || homedir(), '.cache') : undefined);
  return base ? join(base, 'sites') : undefined;
}

/** The cache of the folder `realDir` (its real path) under `dir`, or one that remembers nothing. */
export function openDigestCache(dir: string | undefined, realDir: string): DigestCache {
  const next: CacheFile['files'] = {};
  // Taken before any file is read: a file changed after this (in the same clock tick as its
  // recorded change time, so with the same stamps) is never trusted by the next run.
  const startedAtNs = BigInt(Date.now()) * 1_000_000n;
  if (!dir) return { get: () => undefined, set() {}, save() {} };
  const file = join(dir, `digests-${createHash('sha256').update(realDir).digest('hex').slice(0, 24)}.json`);
  let previous: CacheFile | undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (parsed.v === 1 && typeof parsed.writtenAtNs === 'string' && parsed.files && typeof parsed.files === 'object') previous = parsed;
  } catch {
    // no cache yet, or not ours: hash everything
  }
  const trustedBefore = previous ? BigInt(previous.writtenAtNs) - RACY_NS : 0n;
  return {
    get(name, stamp) {
      const hit = previous?.files[name];
      if (!hit || hit[0] !== stamp) return undefined;
      const changedAtNs = BigInt(stamp.split(':')[2] ?? '0');
      return changedAtNs < trustedBefore ? hit[1] : undefined;
    },
    set(name, stamp, digest) {
      next[name] = [stamp, digest];
    },
    save() {
      try {
        mkdirSync(dir, { recursive: true });
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, JSON.stringify({ v: 1, writtenAtNs: String(startedAtNs), files: next } satisfies CacheFile));
        renameSync(temp, file);
      } catch {
        // a read-only home, a full disk: the next run hashes everything, nothing else changes
      }
    },
  };
}
