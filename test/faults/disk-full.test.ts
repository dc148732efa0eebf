/**
 * Disk full during a publish: the file store is a 3 MB tmpfs. A publish that does not fit
 * is answered 507 (or 500), the old content stays live and whole, and nothing of the failed
 * upload is left in the store. Needs `mount -t tmpfs` (root); skipped with the reason otherwise.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

const run = promisify(execFile);
let svc: RunningService | undefined;
let dataDir: string;
let blobsDir: string;
let mounted = false;
let skipReason = '';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sites-diskfull-'));
  blobsDir = join(dataDir, 'blobs');
  await mkdir(blobsDir);
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', blobsDir]);
    mounted = true;
  } catch (err) {
    skipReason = `cannot mount a tmpfs here (${String((err as { stderr?: string }).stderr ?? err).trim()})`;
    console.log(`disk-full test skipped: ${skipReason}`);
    return;
  }
  svc = await startService({ dataDir });
});
afterAll(async () => {
  await svc?.stop();
  if (mounted) await run('umount', [blobsDir]).catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
});

async function storedBlobs(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else out.push(join(d, e.name));
    }
  };
  await walk(blobsDir);
  return out.sort();
}

describe('disk full', () => {
  it('answers 507/500, keeps the old content live, leaves nothing behind', async (ctx) => {
    if (!mounted) return ctx.skip(skipReason);
    const key = await svc!.createKey(['--name', 'admin', '--admin']);
    const v1 = { 'index.html': '<p>v1</p>', 'a.bin': randomBytes(512 * 1024) };
    expect((await publish(svc!.url, key, { group: '', slug: 'full', title: 'Full' }, { files: v1 })).status).toBe(200);
    const before = await storedBlobs();

    // 4 MB of incompressible files cannot fit in the 2.5 MB left.
    const v2 = { 'index.html': '<p>v2</p>', 'b.bin': randomBytes(2 * 1024 * 1024), 'c.bin': randomBytes(2 * 1024 * 1024) };
    const res = await publish(svc!.url, key, { group: '', slug: 'full' }, { files: v2 });
    console.log(`disk full publish: ${res.status} ${JSON.stringify(res.body)}`);
    expect([507, 500]).toContain(res.status);
    expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });

    const base = svc!.siteUrl('full');
    expect(await (await fetch(base)).text()).toBe('<p>v1</p>');
    expect(Buffer.from(await (await fetch(`${base}a.bin`)).arrayBuffer()).equals(v1['a.bin'])).toBe(true);
    expect((await fetch(`${base}b.bin`)).status).toBe(404);
    // The failed publish's blobs and temp files are gone again.
    expect(await storedBlobs()).toEqual(before);

    // Once there is room again, publishing works.
    const small = await publish(svc!.url, key, { group: '', slug: 'full' }, { files: { 'index.html': '<p>v3</p>' } });
    expect(small.status).toBe(200);
    expect(await (await fetch(base)).text()).toBe('<p>v3</p>');
  });
});
