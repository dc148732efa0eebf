import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { SiteFile } from './folder.ts';

/** The SHA-256 of a file, read as a stream: never the whole file in memory. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Runs `work` over `items` with at most `limit` at a time, in order of start; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    // After a failure no new item starts: the caller has its answer, the rest would be wasted work.
    while (next < items.length && !failed) {
      const i = next++;
      try {
        results[i] = await work(items[i]!, i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Digests of every file, several files at a time (disk and one core each way). */
export function hashFiles(files: readonly SiteFile[], onFile: (f: SiteFile) => void = () => undefined, concurrency = 8): Promise<string[]> {
  return mapLimit(files, concurrency, async (f) => {
    const digest = await hashFile(f.path);
    onFile(f);
    return digest;
  });
}
