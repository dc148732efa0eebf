import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Number of blobs in an embedded file store (`<dataDir>/blobs/ab/cd/<hash>`), temp files excluded. */
export async function countBlobs(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'blobs');
  let n = 0;
  for (const a of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!a.isDirectory() || a.name === 'tmp') continue;
    for (const b of await readdir(join(dir, a.name))) n += (await readdir(join(dir, a.name, b))).length;
  }
  return n;
}
