/**
 * Publish, republish and retention benchmarks: the generated site as .tar.gz and .zip
 * against extracting the same archive with tar / unzip; memory of the service process;
 * what a 1% change costs; the store after N publishes against N full copies.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../support/service.ts';
import { buildArchives, changeOnePercent, childrenCpuMs, exec, fmt, folderBytes, generateSite, mb, processCpu, publishFile, sampleRss, servicePid, timed, writtenBytes } from './support.ts';
import type { Row } from './table.ts';

export type PublishParams = { readonly files: number; readonly bytes: number; readonly versions: number; readonly runs: number };

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
  const leftovers: string[] = [];
  try {
    log(`generating ${p.files} files / ${fmt(mb(p.bytes), 0)} MB`);
    const site = await generateSite(join(work, 'gen'), p.files, p.bytes);
    const archives = await buildArchives(site, work, 'v0');

    // This machine's disk is noisy (the same extraction takes 0.25 s or 3 s from one minute
    // to the next), so the publishes and the extractions alternate, each from a flushed
    // disk (`sync`), and the medians are compared. Each run starts a fresh service, which
    // publishes another site of the same size first (timed too: the "first publish" row),
    // then the measured one: the headline is a running service's publish, not that of a
    // process whose JIT has not yet compiled the publish path (which halves its speed).
    // Nothing is deleted until the end: this disk is mounted with `discard`, and a deletion
    // just before a timed step made that step wait for the trim.
    const settle = () => exec('sync', []);
    const extractOnce = async (cmd: string, args: (dir: string) => string[]) => {
      const dir = join(work, `x-${Math.random().toString(36).slice(2)}`);
      await mkdir(dir);
      leftovers.push(dir);
      await settle();
      const cpu0 = await childrenCpuMs();
      const { ms } = await timed(() => exec(cmd, args(dir)));
      return { ms, cpuMs: (await childrenCpuMs()) - cpu0 };
    };
    const otherSite = await generateSite(join(work, 'other'), p.files, p.bytes, 2);
    const other = await buildArchives(otherSite, work, 'other');
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const range = (xs: number[]) => `${fmt(Math.min(...xs) / 1000, 2)}–${fmt(Math.max(...xs) / 1000, 2)} s`;
    const seconds = (ms: number) => `${fmt(ms / 1000, 2)} s`;
    const formats = [
      { name: '.zip', target: 1.0, archive: archives.zip, first: other.zip, tool: 'unzip -q', extract: () => extractOnce('unzip', (d) => ['-q', archives.zip, '-d', d]) },
      { name: '.tar.gz', target: 1.5, archive: archives.tgz, first: other.tgz, tool: 'tar -xzf', extract: () => extractOnce('tar', (d) => ['-xzf', archives.tgz, '-C', d]) },
    ];
    for (const f of formats) {
      const publishMs: number[] = [];
      const firstMs: number[] = [];
      const extractMs: number[] = [];
      // CPU time of each side (all threads and child processes): what the machine's load takes its share of.
      const publishCpu: number[] = [];
      const publishMainCpu: number[] = [];
      const extractCpu: number[] = [];
      let peak = 0;
      let idle = 0;
      for (let run = 0; run < p.runs; run++) {
        log(`${f.name}: run ${run + 1} of ${p.runs}`);
        const extracted = await f.extract();
        extractMs.push(extracted.ms);
        extractCpu.push(extracted.cpuMs);
        const { svc, key, pid } = await freshService(p.versions);
        try {
          await settle();
          const first = await publishFile(svc.port, key, { group: 'bench', slug: 'other', title: 'Other' }, f.first);
          if (first.status !== 200) throw new Error(`first publish failed: ${first.status} ${JSON.stringify(first.body)}`);
          firstMs.push(first.ms);
          idle = Math.max(idle, (await sampleRss(pid).stop()).peakMb);
          await settle();
          const rss = sampleRss(pid);
          const cpu0 = await processCpu(pid);
          const res = await publishFile(svc.port, key, { group: 'bench', slug: 'site', title: 'Bench' }, f.archive);
          const cpu1 = await processCpu(pid);
          const mem = await rss.stop();
          publishCpu.push(cpu1.total - cpu0.total);
          publishMainCpu.push(cpu1.main - cpu0.main);
          if (res.status !== 200) throw new Error(`${f.name} publish failed: ${res.status} ${JSON.stringify(res.body)}`);
          publishMs.push(res.ms);
          peak = Math.max(peak, mem.peakMb, mem.hwmMb);
        } finally {
          await svc.halt();
          leftovers.push(svc.dataDir);
        }
      }
      const ratio = median(publishMs) / median(extractMs);
      const extracted = `${f.tool}: ${seconds(median(extractMs))} (${range(extractMs)})`;
      rows.push({
        section: 'Publish',
        what: `${f.name}, ${p.files} files / ${fmt(mb(site.bytes), 0)} MB, a running service (median of ${p.runs}, runs ${range(publishMs)}; CPU: all threads, main thread)`,
        value: `${seconds(median(publishMs))}, CPU ${seconds(median(publishCpu))} (main ${seconds(median(publishMainCpu))})`,
        reference: `${extracted}, CPU ${seconds(median(extractCpu))}`,
        ratio,
        target: `≤ ${fmt(f.target, 1)}×`,
        ok: ratio <= f.target,
      });
      rows.push({ section: 'Publish', what: `${f.name}, the same size as the first publish of a fresh process (runs ${range(firstMs)})`, value: `${fmt(median(firstMs) / 1000, 2)} s`, reference: extracted, ratio: median(firstMs) / median(extractMs) });
      rows.push({ section: 'Publish', what: `peak RSS over both ${f.name} publishes (highest of ${p.runs})`, value: `${fmt(peak, 0)} MB`, reference: `after the first: ${fmt(idle, 0)} MB`, ratio: peak / idle, target: '< 150 MB', ok: peak < 150 });
    }

    // Republish and retention, on one more fresh service.
    const { svc, key, pid } = await freshService(p.versions);
    try {
      const blobsDir = join(svc.dataDir, 'blobs');
      const store = async () => (await folderBytes(blobsDir, new Set(['tmp']))).bytes;
      const before = await store();
      const w0 = await writtenBytes(pid);
      const first = await publishFile(svc.port, key, { group: 'bench', slug: 'site', title: 'Bench' }, archives.tgz);
      if (first.status !== 200) throw new Error(`publish failed: ${first.status} ${JSON.stringify(first.body)}`);
      const firstStored = (await store()) - before;
      const firstWritten = (await writtenBytes(pid)) - w0;

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
    for (const dir of [...leftovers, work]) await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
