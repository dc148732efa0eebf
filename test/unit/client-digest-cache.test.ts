import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheDir, openDigestCache } from '../../client/digest-cache.ts';
import { siteFiles } from '../../client/folder.ts';
import { hashFiles } from '../../client/hash.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'digest-cache-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** Hashes the folder with the cache and says which files were read. */
async function run(dir: string, cache: string): Promise<{ digests: Record<string, string>; read: string[] }> {
  const { files } = await siteFiles(dir);
  const reads: string[] = [];
  const c = openDigestCache(cache, dir);
  const watched = {
    ...c,
    get(name: string, stamp: string) {
      const known = c.get(name, stamp);
      if (!known) reads.push(name);
      return known;
    },
  };
  const digests = await hashFiles(files, () => undefined, watched);
  return { digests: Object.fromEntries(files.map((f, i) => [f.name, digests[i]!])), read: reads.sort() };
}

describe('the client\'s digest cache', () => {
  it('reuses digests of unchanged files only; a rewrite shows even with the old size and modification time', async () => {
    const dir = join(work, 'site');
    const cache = join(work, 'cache');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.html'), 'one');
    await writeFile(join(dir, 'a.css'), 'aaa');
    // Files written just now are hashed again next time (a rewrite in the same clock tick could keep every stamp).
    expect((await run(dir, cache)).read).toEqual(['a.css', 'index.html']);
    expect((await run(dir, cache)).read).toEqual(['a.css', 'index.html']);
    // Old enough: trusted from then on.
    const past = new Date(Date.now() - 60_000);
    for (const f of ['index.html', 'a.css']) await utimes(join(dir, f), past, past);
    await new Promise((r) => setTimeout(r, 2_100)); // their change times are older than the margin now
    await run(dir, cache);
    const warm = await run(dir, cache);
    expect(warm.read).toEqual([]);
    expect(warm.digests).toEqual({ 'index.html': sha('one'), 'a.css': sha('aaa') });
    // Same size, modification time put back: the change time still tells.
    const before = await stat(join(dir, 'a.css'));
    await writeFile(join(dir, 'a.css'), 'bbb');
    await utimes(join(dir, 'a.css'), before.atime, before.mtime);
    const after = await run(dir, cache);
    expect(after.read).toEqual(['a.css']);
    expect(after.digests['a.css']).toBe(sha('bbb'));
  });

  it('is only a shortcut: a corrupt or missing cache hashes everything; SITES_CACHE_DIR=off turns it off', async () => {
    const dir = join(work, 'site2');
    const cache = join(work, 'cache2');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.html'), 'x');
    const { files } = await siteFiles(dir);
    const c = openDigestCache(cache, dir);
    await hashFiles(files, () => undefined, c);
    const [name] = await readdir(cache);
    await writeFile(join(cache, name!), '{not json');
    expect(await hashFiles(files, () => undefined, openDigestCache(cache, dir))).toEqual([sha('x')]);
    expect(JSON.parse(await readFile(join(cache, name!), 'utf8')).v).toBe(1); // rewritten
    expect(cacheDir({ SITES_CACHE_DIR: 'off' })).toBeUndefined();
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/sites');
    expect(cacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/sites');
  });
});
