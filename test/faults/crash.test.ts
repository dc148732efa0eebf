/**
 * SIGKILL at the worst moments: mid-upload, between the append and the read-model update
 * (in a process of its own, and in the service holding the projector lease), and at a
 * random point of concurrent publishes. After each restart every site serves one
 * complete version (old or new, never a mix); at the end the read model equals a replay,
 * and `sites gc` leaves exactly the blobs the retained revisions need.
 */
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentType } from '../../app/publish/content.ts';
import { serializeManifest, type ManifestEntry } from '../../domain/manifest.ts';
import { publish, tarGz } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let svc: RunningService;
let dataDir: string;
let key: string;
const auth = () => ({ Authorization: `Bearer ${key}` });

/** Version `v` of site `s`: distinct bytes per version, plus one file shared by all. */
const BIG = randomBytes(4 * 1024 * 1024);
function version(s: string, v: number): Record<string, Buffer> {
  return {
    'index.html': Buffer.from(`<p>${s} v${v}</p>`),
    'a.txt': Buffer.from(`${s} v${v} a`),
    'deep/b.css': Buffer.from(`/* ${s} v${v} */`),
    'shared.txt': Buffer.from('the same in every version'),
    ...(v % 2 === 0 ? { 'big.bin': Buffer.concat([BIG, Buffer.from(`${s} v${v}`)]) } : {}),
  };
}

/** Which version a site serves, after checking that every one of its files is of that version. */
async function servedVersion(s: string): Promise<number> {
  const base = svc.siteUrl(s);
  const index = await (await fetch(base)).text();
  const m = new RegExp(`<p>${s.replace('/', '\\/')} v(\\d+)</p>`).exec(index);
  if (!m) throw new Error(`${s}: unexpected index ${index}`);
  const v = Number(m[1]);
  for (const [path, bytes] of Object.entries(version(s, v))) {
    const got = Buffer.from(await (await fetch(`${base}${path}`)).arrayBuffer());
    expect(got.equals(bytes), `${s}/${path} is of v${v}`).toBe(true);
  }
  if (v % 2 === 1) expect((await fetch(`${base}big.bin`)).status, `${s} v${v} has no big.bin`).toBe(404);
  return v;
}

async function blobsOnDisk(): Promise<Set<string>> {
  const found = new Set<string>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (e.name !== 'tmp') await walk(join(d, e.name));
      } else if (/^[0-9a-f]{64}$/.test(e.name)) found.add(e.name);
    }
  };
  await walk(join(dataDir, 'blobs'));
  return found;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The blobs every retained revision of every site needs: its files and its manifest, computed from the content we sent. */
async function expectedBlobs(): Promise<Set<string>> {
  const need = new Set<string>();
  const list = (await (await fetch(`${svc.url}/api/sites?limit=500&hidden=true`, { headers: auth() })).json()) as { sites: { group: string; slug: string }[] };
  for (const site of list.sites) {
    const path = site.group ? `${site.group}/${site.slug}` : site.slug;
    const revs = (await (await fetch(`${svc.url}/api/sites/${path}/revisions`, { headers: auth() })).json()) as { revisions: { id: string }[] };
    for (const rev of revs.revisions) {
      const index = await (await fetch(`${svc.url}/api/sites/${path}/revisions/${rev.id}/file?path=index.html`, { headers: auth() })).text();
      const v = Number(/ v(\d+)</.exec(index)![1]);
      const entries = new Map<string, ManifestEntry>();
      for (const [p, bytes] of Object.entries(version(path, v))) {
        need.add(sha(bytes));
        entries.set(p, { hash: sha(bytes), size: bytes.length, type: contentType(p) });
      }
      need.add(sha(serializeManifest(entries)));
    }
  }
  return need;
}

/** Streams the multipart body of `archive` but sends only `fraction` of it, then keeps the request open. */
function partialUpload(meta: object, archive: Buffer, fraction: number): { written: Promise<void> } {
  const boundary = 'crash';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify(meta)}\r\n--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="b.tgz"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = request({ host: '127.0.0.1', port: svc.port, method: 'POST', path: '/ingest/sites', headers: { Host: `localhost:${svc.port}`, ...auth(), 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + archive.length + tail.length } });
  req.on('error', () => undefined); // the server dies under it
  req.on('response', (res) => res.resume());
  return { written: new Promise((done) => req.write(Buffer.concat([head, archive.subarray(0, Math.floor(archive.length * fraction))]), () => done())) };
}

/**
 * A real publish of version `v` of `site` in a process of its own, SIGKILLed by the hook
 * that would wait for the projection: its events are in the log, not in the read model.
 * Returns the signal that ended the process.
 */
async function publishThenDie(site: string, v: number): Promise<string | undefined> {
  const [group, slug] = site.split('/');
  const script = join(dataDir, 'publish-then-die.mts');
  await writeFile(
    script,
    `import { Readable } from 'node:stream';
import { loadConfig } from '${ROOT}/host/config.ts';
import { createService } from '${ROOT}/host/service.ts';
import { commitFiles } from '${ROOT}/app/publish/commit.ts';
const files = ${JSON.stringify(Object.fromEntries(Object.entries(version(site, v)).map(([p, b]) => [p, b.toString('base64')])))};
const service = await createService(loadConfig(), { project: 'catch-up' });
const deps = { ...service.deps, waitForProjection: async () => { process.kill(process.pid, 'SIGKILL'); await new Promise(() => {}); } };
async function* entries() { for (const [path, b64] of Object.entries(files)) yield { path, content: { kind: 'stream', source: Readable.from([Buffer.from(b64, 'base64')]) } }; }
await commitFiles(deps, { kind: 'user', name: 'crash' }, { address: { group: ${JSON.stringify(group)}, slug: ${JSON.stringify(slug)} }, meta: {} }, entries());
console.log('not killed');
`,
  );
  return promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...svc.env } }).then(
    () => 'exited normally',
    (err: { signal?: string }) => err.signal,
  );
}

async function listing(): Promise<unknown[]> {
  const pages: unknown[] = [];
  for (const q of ['limit=500&hidden=true', 'limit=500&sort=slug', 'q=v&limit=10']) {
    pages.push(await (await fetch(`${svc.url}/api/sites?${q}`, { headers: auth() })).json());
  }
  const deleted = await (await fetch(`${svc.url}/api/sites/deleted`, { headers: auth() })).json();
  return [...pages, deleted];
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sites-crash-'));
  svc = await startService({ dataDir, env: { SITES_VERSIONING_ENABLED: 'true', SITES_VERSIONING_KEEP: '3' } });
  key = await svc.createKey(['--name', 'admin', '--admin']);
});
afterAll(async () => {
  await svc?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('SIGKILL', () => {
  it('mid-upload: the old content stays live', async () => {
    expect((await publish(svc.url, key, { group: 'crash', slug: 'upload', title: 'Upload' }, { files: version('crash/upload', 1) })).status).toBe(200);
    const before = (await blobsOnDisk()).size;
    const up = partialUpload({ group: 'crash', slug: 'upload' }, await tarGz(version('crash/upload', 2)), 0.6);
    await up.written;
    // Wait until the server has stored something of the new upload, then kill it.
    for (let i = 0; i < 100 && (await blobsOnDisk()).size === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await blobsOnDisk()).size).toBeGreaterThan(before);
    await svc.kill();
    await svc.restart();
    expect(await servedVersion('crash/upload')).toBe(1);
  });

  it('between the append and the read-model update: the new content goes live on restart', async () => {
    expect((await publish(svc.url, key, { group: 'crash', slug: 'append', title: 'Append' }, { files: version('crash/append', 1) })).status).toBe(200);
    await svc.stop();
    expect(await publishThenDie('crash/append', 2)).toBe('SIGKILL');
    await svc.restart();
    expect(await servedVersion('crash/append')).toBe(2);
  });

  it('the service is killed holding the projector lease, with a publish in the log and not in the read model: the restart projects it at once', async () => {
    expect((await publish(svc.url, key, { group: 'crash', slug: 'lease', title: 'Lease' }, { files: version('crash/lease', 1) })).status).toBe(200);
    const killed = svc.pid;
    await svc.kill();
    // What a kill between a publish's append and its projection leaves: the event in the log,
    // the read model without it (here the append comes from a process killed at that point).
    expect(await publishThenDie('crash/lease', 2)).toBe('SIGKILL');
    // The killed service's lease is still in the read model. It was 5 s long and renewed every
    // 1.7 s, so a restart soon after the kill finds it running (the read model then stayed
    // without the publish until it ran out: the last test below once compared its listing
    // with a replay in that window); it is set to run a minute more, so the outcome does not
    // hang on how long the steps above took.
    const db = new Database(join(dataDir, 'readmodel.sqlite'));
    const lease = db.prepare("SELECT holder FROM leases WHERE name = 'projector'").get() as { holder: string } | undefined;
    db.prepare("UPDATE leases SET expires_at = ? WHERE name = 'projector'").run(Date.now() + 60_000);
    db.close();
    expect(lease?.holder.startsWith(`${killed}-`), `lease held by the killed process ${killed}: ${lease?.holder}`).toBe(true);
    await svc.restart();
    // Served at once, not a minute later: polled a few seconds only for a busy machine.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await servedVersion('crash/lease')) !== 2) await new Promise((r) => setTimeout(r, 100));
    expect(await servedVersion('crash/lease')).toBe(2);
    expect(svc.output()).toContain('took over the projector lease from a process that stopped without releasing it');
  });

  it('at a random point of 10 concurrent republishes: each site serves one whole version', async () => {
    const sites = Array.from({ length: 10 }, (_, i) => `crash/many${i}`);
    for (const s of sites) expect((await publish(svc.url, key, { group: 'crash', slug: s.split('/')[1], title: s }, { files: version(s, 1) })).status).toBe(200);
    const inflight = sites.map((s) => publish(svc.url, key, { group: 'crash', slug: s.split('/')[1] }, { files: version(s, 2) }).catch(() => ({ status: -1 })));
    // Kill as soon as the first republish has answered, while the others are in flight.
    await Promise.any(inflight.map((p) => p.then((r) => (r.status === 200 ? r : Promise.reject(new Error(String(r.status)))))));
    await svc.kill();
    const statuses = (await Promise.all(inflight)).map((r) => r.status);
    await svc.restart();
    const versions = await Promise.all(sites.map(servedVersion));
    // A publish answered 200 before the kill is live; the others are old or new, whole.
    statuses.forEach((st, i) => st === 200 && expect(versions[i]).toBe(2));
    console.log(`killed during republishes: answered ${JSON.stringify(statuses)}, live versions ${JSON.stringify(versions)}`);
  });

  it('afterwards the read model equals a replay, and gc leaves exactly the retained blobs', async () => {
    const live = await listing();
    await svc.stop();
    const replay = await svc.cli(['replay']);
    expect(replay.code, replay.stderr).toBe(0);
    await svc.restart();
    expect(await listing()).toEqual(live);
    const need = await expectedBlobs();
    await svc.stop();
    const gc = await svc.cli(['gc']);
    expect(gc.code, gc.stderr).toBe(0);
    console.log(`gc: ${gc.stdout.trim()}`);
    const left = await blobsOnDisk();
    expect([...left].filter((h) => !need.has(h)), 'orphaned blobs').toEqual([]);
    expect([...need].filter((h) => !left.has(h)), 'missing blobs').toEqual([]);
    await svc.restart();
    for (const s of ['crash/upload', 'crash/append', 'crash/lease']) await servedVersion(s);
  });
});
