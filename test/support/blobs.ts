import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Number of blobs in an embedded file store (`<dataDir>/blobs/ab/<hash>`), temp files excluded. */
export async function countBlobs(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'blobs');
  let n = 0;
  for (const a of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!a.isDirectory() || a.name === 'tmp') continue;
    n += (await readdir(join(dir, a.name))).filter((name) => /^[0-9a-f]{64}$/.test(name)).length;
  }
  return n;
}
