/**
 * Publish, republish and retention benchmarks: the generated site as .tar.gz and .zip
 * against extracting the same archive with tar / unzip; memory of the service process;
 * what a 1% change costs; the store after N publishes against N full copies.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../support/service.ts';
import { buildArchives, changeOnePercent, exec, fmt, folderBytes, generateSite, mb, publishFile, sampleRss, servicePid, timed, writtenBytes } from './support.ts';
import type { Row } from './table.ts';

export type PublishParams = { readonly files: number; readonly bytes: number; readonly versions: number };

async function freshService(keep: number) {
  const svc = await startService({
    env: {
      SITES_VERSIONING_ENABLED: 'true',
      SITES_VERSIONING_KEEP: String(keep),
      SITES_MAX_UPLOAD_BYTES: String(2 * 1024 ** 3),
      SITES_MAX_EXTRACT_BYTES: String(4 * 1024 ** 3),
      SITES_MAX_EXTRACT_ENTRIES: '1000000',
    },
  });
  const key = await svc.createKey(['--name', 'bench', '--admin']);
  return { svc, key, pid: await servicePid(svc.port) };
}

export async function benchPublish(p: PublishParams, log: (s: string) => void): Promise<Row[]> {
  const work = await mkdtemp(join(tmpdir(), 'sites-bench-publish-'));
  const rows: Row[] = [];
  try {
    log(`generating ${p.files} files / ${fmt(mb(p.bytes), 0)} MB`);
    const site = await generateSite(join(work, 'gen'), p.files, p.bytes);
    const archives = await buildArchives(site, work, 'v0');

    // Every timed step starts from a flushed disk (`sync`), so neither side pays for the
    // other's write-back; the reference is the median of three extractions.
    const settle = () => exec('sync', []);
    const extractOnce = async (cmd: string, args: (dir: string) => string[]) => {
      const dir = join(work, `x-${Math.random().toString(36).slice(2)}`);
      await mkdir(dir);
      await settle();
      const { ms } = await timed(() => exec(cmd, args(dir)));
      await rm(dir, { recursive: true, force: true });
      return ms;
    };
    const extract = async (cmd: string, args: (dir: string) => string[]) => {
      const runs = [await extractOnce(cmd, args), await extractOnce(cmd, args), await extractOnce(cmd, args)];
      return runs.sort((a, b) => a - b)[1]!;
    };
    const tarMs = await extract('tar', (d) => ['-xzf', archives.tgz, '-C', d]);
    const unzipMs = await extract('unzip', (d) => ['-q', archives.zip, '-d', d]);

    // .zip first, on its own fresh service (so neither format finds the other's blobs stored).
    {
      const { svc, key, pid } = await freshService(p.versions);
      try {
        const idle = (await sampleRss(pid).stop()).peakMb;
        await settle();
        const rss = sampleRss(pid);
        const res = await publishFile(svc.port, key, { group: 'bench', slug: 'zip', title: 'Zip' }, archives.zip);
        const mem = await rss.stop();
        if (res.status !== 200) throw new Error(`zip publish failed: ${res.status} ${JSON.stringify(res.body)}`);
        rows.push({ section: 'Publish', what: `.zip, ${p.files} files / ${fmt(mb(site.bytes), 0)} MB`, value: `${fmt(res.ms / 1000, 2)} s`, reference: `unzip -q: ${fmt(unzipMs / 1000, 2)} s`, ratio: res.ms / unzipMs, target: '≤ 2×', ok: res.ms / unzipMs <= 2 });
        rows.push({ section: 'Publish', what: 'peak RSS during .zip publish', value: `${fmt(mem.peakMb, 0)} MB`, reference: `idle before: ${fmt(idle, 0)} MB`, ratio: mem.peakMb / idle, target: '< 150 MB', ok: mem.peakMb < 150 });
      } finally {
        await svc.stop();
      }
    }

    const { svc, key, pid } = await freshService(p.versions);
    try {
      const blobsDir = join(svc.dataDir, 'blobs');
      const store = async () => (await folderBytes(blobsDir, new Set(['tmp']))).bytes;
      const idle = (await sampleRss(pid).stop()).peakMb;
      const before = await store();
      const w0 = await writtenBytes(pid);
      await settle();
      const rss = sampleRss(pid);
      const first = await publishFile(svc.port, key, { group: 'bench', slug: 'site', title: 'Bench' }, archives.tgz);
      const mem = await rss.stop();
      if (first.status !== 200) throw new Error(`publish failed: ${first.status} ${JSON.stringify(first.body)}`);
      const firstStored = (await store()) - before;
      const firstWritten = (await writtenBytes(pid)) - w0;
      rows.push({ section: 'Publish', what: `.tar.gz, ${p.files} files / ${fmt(mb(site.bytes), 0)} MB`, value: `${fmt(first.ms / 1000, 2)} s`, reference: `tar -xzf: ${fmt(tarMs / 1000, 2)} s`, ratio: first.ms / tarMs, target: '≤ 2×', ok: first.ms / tarMs <= 2 });
      rows.push({ section: 'Publish', what: 'peak RSS during .tar.gz publish', value: `${fmt(mem.peakMb, 0)} MB`, reference: `idle before: ${fmt(idle, 0)} MB`, ratio: mem.peakMb / idle, target: '< 150 MB', ok: mem.peakMb < 150 });

      log('republishing with 1% changed');
      await changeOnePercent(site, 1);
      const v1 = await buildArchives(site, work, 'v1');
      const s1 = await store();
      const w1 = await writtenBytes(pid);
      const again = await publishFile(svc.port, key, { group: 'bench', slug: 'site' }, v1.tgz);
      if (again.status !== 200) throw new Error(`republish failed: ${again.status} ${JSON.stringify(again.body)}`);
      const againStored = (await store()) - s1;
      const againWritten = (await writtenBytes(pid)) - w1;
      rows.push({ section: 'Republish 1%', what: 'time (.tar.gz)', value: `${fmt(again.ms / 1000, 2)} s`, reference: `first publish: ${fmt(first.ms / 1000, 2)} s`, ratio: again.ms / first.ms });
      rows.push({ section: 'Republish 1%', what: 'file store growth', value: `${fmt(mb(againStored), 2)} MB`, reference: `first publish: ${fmt(mb(firstStored), 1)} MB`, ratio: againStored / firstStored, target: '≈ 1%', ok: againStored / firstStored < 0.03 });
      rows.push({ section: 'Republish 1%', what: 'bytes the service wrote (wchar)', value: `${fmt(mb(againWritten), 1)} MB`, reference: `first publish: ${fmt(mb(firstWritten), 1)} MB`, ratio: againWritten / firstWritten });

      log(`retention: ${p.versions} publishes`);
      for (let v = 2; v < p.versions; v++) {
        await changeOnePercent(site, v);
        const arch = await buildArchives(site, work, `v${v}`, false);
        const r = await publishFile(svc.port, key, { group: 'bench', slug: 'site' }, arch.tgz);
        if (r.status !== 200) throw new Error(`publish ${v} failed: ${r.status} ${JSON.stringify(r.body)}`);
        await rm(arch.tgz);
      }
      const revs = await fetch(`${svc.url}/api/sites/bench/site/revisions`, { headers: { Authorization: `Bearer ${key}` } });
      const count = ((await revs.json()) as { revisions: unknown[] }).revisions.length;
      const total = (await store()) - before;
      const copies = p.versions * site.bytes;
      rows.push({ section: 'Retention', what: `file store after ${p.versions} publishes (KEEP=${p.versions}, ${count} revisions kept)`, value: `${fmt(mb(total), 1)} MB`, reference: `${p.versions} full copies: ${fmt(mb(copies), 0)} MB`, ratio: total / copies });
    } finally {
      await svc.stop();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return rows;
}
