/**
 * Incremental deploys (spec §10) through the real `sites publish` command, against the
 * archive publish of the same folder as our own CI recipes run it (deploy/github-actions.yml,
 * deploy/gitlab-ci.yml): `tar czf site.tgz -C DIR .`, then curl. Both start from the folder on
 * disk and end when the site is published; the curl upload of the ready archive alone is
 * reported beside it.
 * - the first publish of the generated site through deploys, against its archive publish
 *   (each on a fresh service whose store has not seen the content; target ≤ 1.3×);
 * - a republish with 1% of the files changed: bytes on the wire, counted by a TCP proxy in
 *   front of the service, against the archive republish through the same proxy (target ≤ 2%),
 *   and the time of the whole command against the archive republish (target ≤ 0.2×), on
 *   loopback (with and without the digest cache) and over a 100 Mbit/s link;
 * - the CLI's peak RSS publishing a 10,000-file folder (`/usr/bin/time`), against a bare
 *   `node -e ""` measured the same way.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startService, type RunningService } from '../support/service.ts';
import { buildArchives, changeOnePercent, exec, fmt, generateSite, mb, publishFile, type GeneratedSite } from './support.ts';
import type { Row } from './table.ts';

export type DeployParams = { readonly files: number; readonly bytes: number; readonly runs: number; readonly rssFiles: number };

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'sites.mjs');
const run = promisify(execFile);

/** A TCP proxy in front of the service that counts the bytes each way. */
type CountingProxy = { readonly port: number; readonly bytes: () => number; close(): Promise<void> };

/**
 * Counts every byte through it; with `bytesPerSecond`, also holds each direction of each
 * connection to that rate (after a chunk passes, its sender waits the chunk's time on the
 * link), like a network link between a CI runner and the service.
 */
async function countingProxy(target: number, bytesPerSecond?: number): Promise<CountingProxy> {
  let total = 0;
  const relay = (from: import('node:net').Socket, to: import('node:net').Socket) => {
    from.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (!to.write(chunk)) from.pause();
      if (bytesPerSecond) {
        from.pause();
        setTimeout(() => from.resume(), (chunk.length / bytesPerSecond) * 1000);
      }
    });
    to.on('drain', () => from.resume());
    from.on('end', () => to.end());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    port: (server.address() as { port: number }).port,
    bytes: () => total,
    async close() {
      // Not waiting for the clients' keep-alive connections: they end with their processes.
      server.close();
      server.unref();
    },
  };
}

async function freshService(): Promise<{ svc: RunningService; key: string }> {
  const svc = await startService({
    env: { SITES_MAX_UPLOAD_BYTES: String(2 * 1024 ** 3), SITES_MAX_EXTRACT_BYTES: String(4 * 1024 ** 3), SITES_MAX_EXTRACT_ENTRIES: '1000000' },
  });
  return { svc, key: await svc.createKey(['--name', 'bench', '--admin']) };
}

/** `sites publish` as a user runs it, timed from spawn to exit; its summary line. */
async function cliPublish(svc: RunningService, url: string, key: string, dir: string, site: string, env: Record<string, string> = {}): Promise<{ ms: number; line: string }> {
  const t0 = performance.now();
  const { stdout } = await run(process.execPath, ['--max-semi-space-size=1', '--expose-gc', BIN, 'publish', dir, '--site', site, '--title', 'Bench', '--url', url, '--key', key], {
    env: { ...process.env, ...svc.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return { ms: performance.now() - t0, line: stdout.trim() };
}

/** How an archive publish of a folder went: the whole recipe, and its two steps. */
type ArchiveRun = { readonly ms: number; readonly tarMs: number; readonly curlMs: number; readonly status: number; readonly body: unknown };

/** The archive path as the CI recipes run it: `tar czf` the folder, then upload it with curl. */
async function archivePublish(port: number, key: string, meta: Record<string, unknown>, dir: string, archive: string): Promise<ArchiveRun> {
  const t0 = performance.now();
  await exec('tar', ['czf', archive, '-C', dir, '.']);
  const tarMs = performance.now() - t0;
  const up = await publishFile(port, key, meta, archive);
  return { ms: tarMs + up.ms, tarMs, curlMs: up.ms, status: up.status, body: up.body };
}

const recipe = (a: ArchiveRun) => `archive publish (tar czf ${fmt(a.tarMs / 1000, 2)} s + curl ${fmt(a.curlMs / 1000, 2)} s): ${fmt(a.ms / 1000, 2)} s`;

/** Max RSS (MB) of a command, from GNU time. */
async function maxRssMb(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { stderr } = await run('/usr/bin/time', ['-f', 'maxrss=%M', ...command], { env, maxBuffer: 16 * 1024 * 1024 });
  const kb = Number(/maxrss=(\d+)/.exec(stderr)?.[1]);
  return kb / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[]) => `${fmt(Math.min(...xs) / 1000, 2)}–${fmt(Math.max(...xs) / 1000, 2)} s`;

export async function benchDeploys(p: DeployParams, log: (s: string) => void): Promise<Row[]> {
  const work = await mkdtemp(join(tmpdir(), 'sites-bench-deploys-'));
  const rows: Row[] = [];
  const services: RunningService[] = [];
  try {
    log(`deploys: generating ${p.files} files / ${fmt(mb(p.bytes), 0)} MB`);
    const site = await generateSite(join(work, 'gen'), p.files, p.bytes);
    const warm = await generateSite(join(work, 'warm'), Math.min(p.files, 500), Math.min(p.bytes, 10 * 1024 * 1024), 3);
    const warmArchive = await buildArchives(warm, work, 'warm', false);
    const siteDir = (s: GeneratedSite) => join(s.root, 'site');
    // Builds the CLI's compiled code once, so no run below pays for it.
    await run(process.execPath, [join(ROOT, 'bin', 'build-server.mjs')]);

    // First publishes: each path on a fresh service, after a warm-up publish of other content
    // through the same path (a running service, as the publish benchmark measures it).
    const archives: ArchiveRun[] = [];
    const deployMs: number[] = [];
    let last: { archive: { svc: RunningService; key: string }; deploy: { svc: RunningService; key: string } } | undefined;
    for (let r = 0; r < p.runs; r++) {
      log(`deploys: first publish, run ${r + 1} of ${p.runs}`);
      const archive = await freshService();
      services.push(archive.svc);
      await publishFile(archive.svc.port, archive.key, { group: 'warm', slug: 'up', title: 'Warm' }, warmArchive.tgz);
      await exec('sync', []);
      const a = await archivePublish(archive.svc.port, archive.key, { group: 'bench', slug: 'site', title: 'Bench' }, siteDir(site), join(work, `v0-${r}.tgz`));
      if (a.status !== 200) throw new Error(`archive publish failed: ${a.status} ${JSON.stringify(a.body)}`);
      archives.push(a);

      const deploy = await freshService();
      services.push(deploy.svc);
      await cliPublish(deploy.svc, deploy.svc.url, deploy.key, siteDir(warm), 'warm/up');
      await exec('sync', []);
      const d = await cliPublish(deploy.svc, deploy.svc.url, deploy.key, siteDir(site), 'bench/site');
      if (!/^published /.test(d.line)) throw new Error(`sites publish failed: ${d.line}`);
      deployMs.push(d.ms);
      if (r < p.runs - 1) {
        await archive.svc.stop();
        await deploy.svc.stop();
      } else last = { archive, deploy };
    }
    const archiveMs = archives.map((a) => a.ms);
    const curlMs = archives.map((a) => a.curlMs);
    const medianArchive = archives.find((a) => a.ms === median(archiveMs))!;
    const firstRatio = median(deployMs) / median(archiveMs);
    rows.push({
      section: 'Deploys',
      what: `first publish, ${p.files} files / ${fmt(mb(site.bytes), 0)} MB: \`sites publish\` (hash, manifest, every file uploaded, publish; the whole command) (median of ${p.runs}, runs ${range(deployMs)})`,
      value: `${fmt(median(deployMs) / 1000, 2)} s`,
      reference: `${recipe(medianArchive)} (${range(archiveMs)})`,
      ratio: firstRatio,
      target: '≤ 1.3×',
      ok: firstRatio <= 1.3,
    });
    rows.push({
      section: 'Deploys',
      what: 'the same first publish against the upload of a ready archive alone',
      value: `${fmt(median(deployMs) / 1000, 2)} s`,
      reference: `curl of the ready .tar.gz: ${fmt(median(curlMs) / 1000, 2)} s (${range(curlMs)})`,
      ratio: median(deployMs) / median(curlMs),
    });

    // Republish with 1% changed, both through a counting proxy.
    log('deploys: republishing with 1% changed');
    const changed = await changeOnePercent(site, 1);
    const { archive, deploy } = last!;
    const archiveProxy = await countingProxy(archive.svc.port);
    const deployProxy = await countingProxy(deploy.svc.port);
    try {
      await exec('sync', []);
      const a = await archivePublish(archiveProxy.port, archive.key, { group: 'bench', slug: 'site' }, siteDir(site), join(work, 'v1.tgz'));
      if (a.status !== 200) throw new Error(`archive republish failed: ${a.status}`);
      const archiveBytes = archiveProxy.bytes();
      await exec('sync', []);
      const d = await cliPublish(deploy.svc, `http://localhost:${deployProxy.port}`, deploy.key, siteDir(site), 'bench/site');
      const deployBytes = deployProxy.bytes();
      const m = /\((\d[\d,]*) new, ([^)]+) uploaded\)/.exec(d.line);
      rows.push({
        section: 'Deploys',
        what: `republish with 1% changed (${changed} files): bytes on the wire, both ways (\`sites publish\`: ${m ? `${m[1]} new, ${m[2]} uploaded` : d.line})`,
        value: `${fmt(deployBytes / 1e6, 2)} MB`,
        reference: `archive republish (curl .tar.gz): ${fmt(archiveBytes / 1e6, 1)} MB`,
        ratio: deployBytes / archiveBytes,
        target: '≤ 2%',
        ok: deployBytes / archiveBytes <= 0.02,
      });
      rows.push({
        section: 'Deploys',
        what: 'republish with 1% changed: time of the whole `sites publish` command (start, list, hash what changed (digest cache), manifest, upload, publish)',
        value: `${fmt(d.ms / 1000, 2)} s`,
        reference: `${recipe(a)}`,
        ratio: d.ms / a.ms,
        target: '≤ 0.2×',
        ok: d.ms / a.ms <= 0.2,
      });
      rows.push({
        section: 'Deploys',
        what: 'the same republish against the upload of a ready archive alone (the service stores only the 1% it lacks)',
        value: `${fmt(d.ms / 1000, 2)} s`,
        reference: `curl of the ready .tar.gz: ${fmt(a.curlMs / 1000, 2)} s`,
        ratio: d.ms / a.curlMs,
      });
      // The same from a fresh checkout (a CI runner): no digest cache, every file hashed.
      await changeOnePercent(site, 2);
      await exec('sync', []);
      const a2 = await archivePublish(archive.svc.port, archive.key, { group: 'bench', slug: 'site' }, siteDir(site), join(work, 'v2.tgz'));
      if (a2.status !== 200) throw new Error(`archive republish failed: ${a2.status}`);
      await exec('sync', []);
      const cold = await cliPublish(deploy.svc, deploy.svc.url, deploy.key, siteDir(site), 'bench/site', { SITES_CACHE_DIR: 'off' });
      rows.push({
        section: 'Deploys',
        what: 'the same without the digest cache (a fresh checkout in CI: every file hashed)',
        value: `${fmt(cold.ms / 1000, 2)} s`,
        reference: recipe(a2),
        ratio: cold.ms / a2.ms,
      });

      // The same kind of republish over a 100 Mbit/s link (a CI runner far from the service):
      // what the bytes on the wire cost in time.
      const link = 100e6 / 8;
      const archiveLink = await countingProxy(archive.svc.port, link);
      const deployLink = await countingProxy(deploy.svc.port, link);
      try {
        await changeOnePercent(site, 3);
        await exec('sync', []);
        const a3 = await archivePublish(archiveLink.port, archive.key, { group: 'bench', slug: 'site' }, siteDir(site), join(work, 'v3.tgz'));
        if (a3.status !== 200) throw new Error(`archive republish failed: ${a3.status}`);
        await exec('sync', []);
        const d3 = await cliPublish(deploy.svc, `http://localhost:${deployLink.port}`, deploy.key, siteDir(site), 'bench/site');
        rows.push({
          section: 'Deploys',
          what: 'republish with 1% changed over a 100 Mbit/s link (the proxy holds each direction to that rate): `sites publish`, the whole command',
          value: `${fmt(d3.ms / 1000, 2)} s`,
          reference: `${recipe(a3)}, curl over the same link`,
          ratio: d3.ms / a3.ms,
        });
      } finally {
        await archiveLink.close();
        await deployLink.close();
      }
    } finally {
      await archiveProxy.close();
      await deployProxy.close();
    }

    // Peak RSS of the CLI on a 10,000-file folder.
    if (existsSync('/usr/bin/time')) {
      log(`deploys: CLI peak RSS, ${p.rssFiles} files`);
      const many = await generateSite(join(work, 'many'), p.rssFiles, Math.min(p.bytes, 40 * 1024 * 1024), 5);
      const env = { ...process.env, ...deploy.svc.env };
      const cli = await maxRssMb(
        [process.execPath, '--max-semi-space-size=1', '--expose-gc', BIN, 'publish', siteDir(many), '--site', 'bench/many', '--title', 'Many', '--url', deploy.svc.url, '--key', deploy.key],
        env,
      );
      const bare = await maxRssMb([process.execPath, '-e', ''], env);
      rows.push({
        section: 'Deploys',
        what: `\`sites publish\` peak RSS, a ${p.rssFiles.toLocaleString('en')}-file folder (${fmt(mb(many.bytes), 0)} MB, first publish: every file hashed and uploaded)`,
        value: `${fmt(cli, 0)} MB`,
        reference: `\`node -e ""\`: ${fmt(bare, 0)} MB`,
        ratio: cli / bare,
        target: '< 150 MB',
        ok: cli < 150,
      });
    }
  } finally {
    for (const svc of services) await svc.stop().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }
  return rows;
}
