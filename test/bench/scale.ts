/**
 * The scale section (issue 31): the same costs at 1,000, 10,000 and 100,000 sites, so that
 * the growth of each is a row of its own, and the slope of each from 10,000 to 100,000
 * (log10 of the ratio: 1.0 is linear, 0 flat). At each size the seeded data dir is served
 * by the real service process, once its activity and webhook stores have caught up:
 * `GET /api/sites` (gzip, as a browser asks), each query repeated and each the first time
 * after a write, revalidated (304), its size on the wire; the service's RSS; a restart to a
 * site's first byte; distinct sites round-robin against one site; preview pages against the
 * same sites' live pages. Before that, the log is replayed
 * in a process of its own (replay-child.ts): median of 3 against the raw read, and its peak
 * RSS; the last replay is the read model the service starts with.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { openSqliteActivityStore } from '../../host/activity/sqlite.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { openSqliteWebhookDeliveries } from '../../host/webhooks/sqlite.ts';
import { percentile } from '../support/load.ts';
import { putPreview, variantUrl } from '../support/previews.ts';
import { startService, type RunningService } from '../support/service.ts';
import { send } from './http-send.ts';
import type { ListingFigures, ListingJob } from './scale-listings.ts';
import { seedSite, seedSites } from './seed.ts';
import { timedStart } from './startup.ts';
import { fmt, mb } from './support.ts';
import type { Row } from './table.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

export type ScaleParams = {
  /** Site counts, smallest first; the slope rows compare the last two. */
  readonly sizes: readonly number[];
  /** Publishes per site at each size (the log's length: about 1.2 events per publish after the first). */
  readonly rounds: (sites: number) => number;
  readonly queriesEach: number;
  readonly runs: number;
  readonly roundRobinMs: number;
  /** A data dir seeded before (seedSites with this size and rounds), copied instead of seeding again: to measure again. */
  readonly seeded?: (sites: number) => string | undefined;
  /**
   * A data dir with the read model projected, for iterating on the service's rows: when it
   * exists it is copied and the replays are skipped (no replay row); when it does not, the data
   * dir is copied there after the replays.
   */
  readonly projected?: (sites: number) => string | undefined;
  /**
   * A folder for matching slow answers with what the service did meanwhile: the service's
   * output (e.g. `--trace-gc` through SITES_TEST_NODE_FLAGS), each listing request's start
   * (ms since the epoch) and time, and each round-robin round's rate, per size.
   */
  readonly trace?: string;
};

async function eventCount(dataDir: string): Promise<number> {
  const events = openSqliteEventStore(join(dataDir, 'events.sqlite'));
  try {
    let total = 0;
    for (let after: string | undefined; ; ) {
      const page = await events.readAll(after, 5000);
      if (page.length === 0) return total;
      total += page.length;
      after = page[page.length - 1]!.position;
    }
  } finally {
    await events.close();
  }
}

/**
 * Waits until the activity and webhook stores have the read model's checkpoint. The replay
 * fills the read model alone, so a service started on that data dir fills the other two from
 * the whole log, in windows that share its event loop: measured meanwhile, every request
 * (`/healthz` too) waited for them (p99 65 ms at 100,000 sites). A running service keeps them
 * at the read model's position, as it is measured here.
 */
async function sidesCaughtUp(dataDir: string): Promise<void> {
  const readModel = openSqliteReadModel(join(dataDir, 'readmodel.sqlite'));
  const sides = [openSqliteActivityStore(join(dataDir, 'activity.sqlite')), openSqliteWebhookDeliveries(join(dataDir, 'webhooks.sqlite'))];
  try {
    for (;;) {
      const at = await readModel.checkpoint();
      const behind = await Promise.all(sides.map(async (s) => (await s.checkpoint()) !== at));
      if (!behind.includes(true)) return;
      await new Promise((res) => setTimeout(res, 250));
    }
  } finally {
    await readModel.close();
    for (const s of sides) await s.close();
  }
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => percentile(sorted(xs), 99);
const p50 = (xs: number[]) => percentile(sorted(xs), 50);
const n = (x: number) => x.toLocaleString('en-US');

async function rssMb(pid: number): Promise<number> {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Requests `hosts` round-robin from `connections` keep-alive clients for `ms`; rate and latencies. */
async function roundRobin(port: number, hosts: readonly string[], connections: number, ms: number): Promise<{ rps: number; times: number[]; errors: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const times: number[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < end) {
      const host = hosts[next++ % hosts.length]!;
      const t0 = performance.now();
      const r = await send(agent, port, 'GET', '/', { Host: host });
      times.push(performance.now() - t0);
      if (r.status !== 200) errors++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const took = performance.now() - t0;
  agent.destroy();
  return { rps: times.length / (took / 1000), times, errors };
}

type Measured = {
  sites: number;
  events: number;
  listing: Map<string, number[]>;
  wireGzip: number;
  wirePlain: number;
  rss: number;
  startup: number[];
  replay?: ReplayFigures;
  tls?: { asks: number[]; health: number[] };
  /** `ratios`: each round's rate of the many against the one-site round just before it. */
  roundRobin?: { one: { rps: number; times: number[] }; many: { rps: number; times: number[]; distinct: number }; ratios: number[] };
  previews?: PreviewFigures;
};

/** Rounds of one kind as one figure: the median rate, every latency. */
const merged = (rs: readonly { rps: number; times: number[] }[]) => ({ rps: median(rs.map((r) => r.rps)), times: rs.flatMap((r) => r.times) });

/** `ratios`: each round's preview rate against the live round just before it. */
type PreviewFigures = { count: number; live: { rps: number; times: number[] }; preview: { rps: number; times: number[] }; ratios: number[] };

/** Sites given a preview in the preview row, spread over the whole range. */
const PREVIEWS = 200;
/** Alternating rounds (live, then preview) of the preview row; the row's ratio is their median. */
const PREVIEW_ROUNDS = 5;
/** Alternating rounds (one site, then the distinct sites) of the round-robin row; the row's ratio is their median. */
const ROUND_ROBIN_ROUNDS = 5;

/**
 * A preview page against the live page at this many sites (spec §14, as the serving section
 * compares them on one site): `PREVIEWS` sites get a preview `pr-1` of their own live page,
 * then their preview hosts and their live hosts are requested round-robin, in alternating
 * rounds, so both meet the same machine.
 */
async function previewPages(svc: RunningService, key: string, sites: number, ms: number, log: (s: string) => void): Promise<PreviewFigures> {
  log(`scale: ${PREVIEWS} previews against their live pages`);
  const paths = Array.from({ length: Math.min(PREVIEWS, sites) }, (_, i) => {
    const s = seedSite(Math.floor((i * sites) / PREVIEWS) + 1);
    return `${s.group}/${s.slug}`;
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const live: string[] = [];
  const previews: string[] = [];
  for (const path of paths) {
    const host = new URL(svc.siteUrl(path)).host;
    const page = await send(agent, svc.port, 'GET', '/', { Host: host });
    if (page.status !== 200) throw new Error(`${path}: ${page.status}`);
    const put = await putPreview(svc.url, key, path, 'pr-1', { files: { 'index.html': page.body.toString('utf8') } });
    if (put.status !== 200) throw new Error(`preview of ${path}: ${put.status}`);
    live.push(host);
    previews.push(new URL(variantUrl(svc.port, path, 'pr-1')).host);
  }
  agent.destroy();
  await roundRobin(svc.port, live, 8, 1000); // warm-up: each host looked up once
  await roundRobin(svc.port, previews, 8, 1000);
  const rounds = { live: [] as Awaited<ReturnType<typeof roundRobin>>[], preview: [] as Awaited<ReturnType<typeof roundRobin>>[] };
  for (let i = 0; i < PREVIEW_ROUNDS; i++) {
    rounds.live.push(await roundRobin(svc.port, live, 8, ms / 2));
    rounds.preview.push(await roundRobin(svc.port, previews, 8, ms / 2));
  }
  const errors = [...rounds.live, ...rounds.preview].reduce((sum, r) => sum + r.errors, 0);
  if (errors > 0) throw new Error(`previews: ${errors} answers were not 200`);
  return { count: paths.length, live: merged(rounds.live), preview: merged(rounds.preview), ratios: rounds.preview.map((r, i) => r.rps / rounds.live[i]!.rps) };
}


async function measureSize(sites: number, p: ScaleParams, log: (s: string) => void): Promise<Measured> {
  const seedDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'sites-bench-scale-seed-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'sites-bench-scale-'));
  try {
    const rounds = p.rounds(sites);
    const projected = p.projected?.(sites);
    if (projected && existsSync(projected)) {
      log(`scale: copying ${projected} (projected before; no replay)`);
      await cp(projected, dataDir, { recursive: true });
      return await measureService(sites, await eventCount(projected), dataDir, p, log);
    }
    const kept = p.seeded?.(sites);
    log(kept ? `scale: copying ${kept} (seeded before)` : `scale: seeding ${n(sites)} sites × ${rounds} publishes`);
    const seeded = kept ? { ms: 0, events: await eventCount(kept) } : await seedSites(seedDir, sites, rounds);
    await cp(kept ?? seedDir, dataDir, { recursive: true });
    await rm(seedDir, { recursive: true, force: true });
    log(`scale: seeded ${n(seeded.events)} events in ${fmt(seeded.ms / 1000)} s`);
    // The replays first: they leave the read model projected, so the service starts caught up
    // (projecting a million events at start would outlast the CLI's wait for its key).
    log(`scale: replaying ${n(seeded.events)} events (${p.runs} runs, in a process of its own)`);
    const replay = await replayInChild(dataDir, p.runs);
    if (projected) await cp(dataDir, projected, { recursive: true });
    return { ...(await measureService(sites, seeded.events, dataDir, p, log)), replay };
  } finally {
    await rm(seedDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The service's rows on a data dir whose read model is projected. */
async function measureService(sites: number, events: number, dataDir: string, p: ScaleParams, log: (s: string) => void): Promise<Measured> {
  const out: Measured = { sites, events, listing: new Map(), wireGzip: 0, wirePlain: 0, rss: 0, startup: [] };
  let svc: RunningService | undefined = await startService({ dataDir });
  try {
    const key = await svc.createKey(['--name', 'bench', '--admin']);
    const auth = { Host: `localhost:${svc.port}`, Authorization: `Bearer ${key}` };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const t0 = performance.now();
    for (;;) {
      const r = await send(agent, svc.port, 'GET', '/api/sites?limit=1', auth);
      if (r.status === 200 && (JSON.parse(r.body.toString('utf8')) as { count: number }).count >= sites) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    log(`scale: the service projected ${n(events)} events in ${fmt((performance.now() - t0) / 1000)} s`);
    await sidesCaughtUp(dataDir);
    log(`scale: its activity and webhook stores caught up in ${fmt((performance.now() - t0) / 1000)} s`);

    agent.destroy();
    const site = seedSite(0);
    const hidden = seedSite(sites - 2); // not the restart's or a preview's (a hidden site is still served: the round-robin may ask for it)
    const job: ListingJob = {
      port: svc.port,
      key,
      viewerKey: await svc.createKey(['--name', 'viewer', '--grant', 'viewer:publish']), // not an admin: sees no hidden site
      queriesEach: p.queriesEach,
      patched: { path: `${site.group}/${site.slug}`, title: site.title },
      hidden: `${hidden.group}/${hidden.slug}`,
      names: Array.from({ length: Math.min(2000, sites * 2) }, (_, i) => {
        const s = seedSite((i * 7919) % sites);
        return new URL(svc!.siteUrl(`${s.group}/${s.slug}`)).hostname;
      }),
    };
    const figures = await listingsInChild(job);
    let roundRates: { one: number[]; many: number[] } | undefined; // each round's rate, for the trace
    out.listing = new Map(figures.listing);
    out.wireGzip = figures.wireGzip;
    out.wirePlain = figures.wirePlain;
    out.tls = figures.tls;

    if (sites >= 10_000) {
      const distinct = Math.min(10_000, sites);
      const hosts = Array.from({ length: distinct }, (_, i) => {
        const s = seedSite(i);
        return new URL(svc!.siteUrl(`${s.group}/${s.slug}`)).host;
      });
      log(`scale: ${n(distinct)} sites round-robin against one`);
      // The one site: the last of them (site 0 was just patched 25 times).
      const single = hosts.slice(-1);
      await roundRobin(svc.port, single, 8, 1000); // warm-up
      await roundRobin(svc.port, hosts, 8, Math.min(p.roundRobinMs, 2000)); // each site's manifest once
      // Alternating rounds (one site, then the many), so a drift of the machine meets both.
      const rounds = { one: [] as Awaited<ReturnType<typeof roundRobin>>[], many: [] as Awaited<ReturnType<typeof roundRobin>>[] };
      for (let i = 0; i < ROUND_ROBIN_ROUNDS; i++) {
        rounds.one.push(await roundRobin(svc.port, single, 8, p.roundRobinMs / 2));
        rounds.many.push(await roundRobin(svc.port, hosts, 8, p.roundRobinMs / 2));
      }
      const errors = [...rounds.one, ...rounds.many].reduce((sum, r) => sum + r.errors, 0);
      if (errors > 0) throw new Error(`round-robin: ${errors} answers were not 200`);
      out.roundRobin = { one: merged(rounds.one), many: { ...merged(rounds.many), distinct }, ratios: rounds.many.map((r, i) => r.rps / rounds.one[i]!.rps) };
      roundRates = { one: rounds.one.map((r) => r.rps), many: rounds.many.map((r) => r.rps) };
      out.previews = await previewPages(svc, key, sites, p.roundRobinMs, log);
    }
    out.rss = await rssMb(svc.pid);
    const last = seedSite(sites - 1);
    const siteHost = new URL(svc.siteUrl(`${last.group}/${last.slug}`)).hostname;
    await svc.halt();
    if (p.trace) {
      await mkdir(p.trace, { recursive: true });
      await writeFile(join(p.trace, `service-${sites}.log`), svc.output());
      await writeFile(join(p.trace, `requests-${sites}.json`), JSON.stringify(figures.traced));
      if (out.roundRobin) await writeFile(join(p.trace, `rounds-${sites}.json`), JSON.stringify(roundRates));
    }
    svc = undefined;

    log('scale: restarts to a site’s first byte');
    await run(process.execPath, [join(ROOT, 'bin', 'build-server.mjs')], { cwd: ROOT });
    for (let i = 0; i < p.runs; i++) out.startup.push(await timedStart(dataDir, '/', (port) => `${siteHost}:${port}`));
  } finally {
    await svc?.stop();
  }
  return out;
}

/** Runs scale-listings.ts against the running service: the listing and `/tls/ask` rows from a load generator with a heap of its own. */
async function listingsInChild(job: ListingJob): Promise<ListingFigures> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'test', 'bench', 'scale-listings.ts'), JSON.stringify(job)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  if (code !== 0) throw new Error(`listing child exited ${code}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as ListingFigures;
}

/** `cpu`: per run, the CPU milliseconds of the raw read and of the replay (on a shared machine the wall times also hold the waits for a core). */
export type ReplayFigures = { events: number; reads: number[]; replays: number[]; peakMb: number; cpu: [number, number][] };

/** Runs replay-child.ts on a data dir: `runs` raw reads and replays, alternating, and the child's peak RSS. */
export async function replayInChild(dataDir: string, runs: number): Promise<ReplayFigures> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'bench', 'replay-child.ts'), dataDir, String(runs)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  if (code !== 0) throw new Error(`replay child exited ${code}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as ReplayFigures;
}

const spread = (xs: number[], unit: (x: number) => string) => `${unit(Math.min(...xs))}–${unit(Math.max(...xs))}`;

export async function benchScale(p: ScaleParams, log: (s: string) => void): Promise<Row[]> {
  const measured: Measured[] = [];
  for (const size of p.sizes) measured.push(await measureSize(size, p, log));
  const rows: Row[] = [];
  for (const m of measured) {
    const at = `${n(m.sites)} sites`;
    for (const [label, times] of m.listing) {
      rows.push({ section: 'Scale', what: `GET /api/sites ${label}, gzip, at ${at}`, value: `p50 ${fmt(p50(times))} ms, p99 ${fmt(p99(times))} ms`, reference: `${times.length} queries`, target: 'p99 < 50 ms', ok: p99(times) < 50 });
    }
    rows.push({ section: 'Scale', what: `the unfiltered listing on the wire (gzip) at ${at}`, value: `${fmt(mb(m.wireGzip), 2)} MB`, reference: `plain: ${fmt(mb(m.wirePlain), 2)} MB`, ratio: m.wireGzip / m.wirePlain, target: '≤ 5 MB', ok: mb(m.wireGzip) <= 5 });
    rows.push({ section: 'Scale', what: `service RSS with ${at} live (after the listings${m.roundRobin ? ' and the round-robin' : ''})`, value: `${fmt(m.rss)} MB`, reference: '', target: '< 400 MB', ok: m.rss < 400 });
    rows.push({ section: 'Scale', what: `restart to a site's first byte at ${at} (median of ${m.startup.length}, runs ${spread(m.startup, (x) => `${fmt(x / 1000, 2)} s`)})`, value: `${fmt(median(m.startup) / 1000, 2)} s`, reference: '', target: '< 2 s', ok: median(m.startup) < 2000 });
    if (m.tls) {
      const { asks, health } = m.tls;
      rows.push({ section: 'Scale', what: `GET /tls/ask for a live site's name over HTTP at ${at} (${asks.length} names, one keep-alive connection)`, value: `p50 ${fmt(p50(asks), 2)} ms, p99 ${fmt(p99(asks), 2)} ms`, reference: `GET /healthz: p50 ${fmt(p50(health), 2)} ms, p99 ${fmt(p99(health), 2)} ms`, ratio: p99(asks) / p99(health), target: 'p99 < 5 ms', ok: p99(asks) < 5 });
    }
    if (m.roundRobin) {
      const { one, many, ratios } = m.roundRobin;
      const ratio = median(ratios);
      rows.push({
        section: 'Scale',
        what: `${n(many.distinct)} distinct sites round-robin (8 connections) at ${at} (median of ${ratios.length} alternating rounds, ratios ${spread(ratios, (x) => x.toFixed(2))})`,
        value: `${Math.round(many.rps)} req/s, p99 ${fmt(p99(many.times), 2)} ms`,
        reference: `one site: ${Math.round(one.rps)} req/s, p99 ${fmt(p99(one.times), 2)} ms`,
        ratio,
        target: '≥ 0.8×, p99 < 10 ms',
        ok: ratio >= 0.8 && p99(many.times) < 10,
      });
    }
    if (m.previews) {
      const { count, live, preview, ratios } = m.previews;
      const ratio = median(ratios);
      rows.push({
        section: 'Scale',
        what: `a preview's page vs the same sites' live pages at ${at} (${count} preview hosts round-robin, 8 connections; median of ${ratios.length} alternating rounds, ratios ${spread(ratios, (x) => x.toFixed(2))})`,
        value: `${Math.round(preview.rps)} req/s, p99 ${fmt(p99(preview.times), 2)} ms`,
        reference: `live: ${Math.round(live.rps)} req/s, p99 ${fmt(p99(live.times), 2)} ms`,
        ratio,
        target: '≥ 0.9×, p99 < 10 ms',
        ok: ratio >= 0.9 && p99(preview.times) < 10,
      });
    }
    if (m.replay) {
      const r = m.replay;
      const rate = (ms: number) => r.events / (ms / 1000);
      const ratios = r.replays.map((ms, i) => r.reads[i]! / ms);
      rows.push({
        section: 'Scale',
        what: `replay of ${n(r.events)} events (reset + catch-up; median of ${r.replays.length}, ratios ${spread(ratios, (x) => x.toFixed(2))})`,
        value: `${n(Math.round(rate(median(r.replays))))} events/s, CPU ${fmt(median(r.cpu.map((c) => c[1])) / 1000)} s, peak RSS ${fmt(r.peakMb)} MB`,
        reference: `raw read: ${n(Math.round(rate(median(r.reads))))} events/s, CPU ${fmt(median(r.cpu.map((c) => c[0])) / 1000)} s`,
        ratio: median(ratios),
        target: '≥ 0.5×, peak RSS < 400 MB',
        ok: median(ratios) >= 0.5 && r.peakMb < 400,
      });
    }
  }
  // Slopes between the last two sizes: log10(cost ratio) / log10(size ratio).
  if (measured.length >= 2) {
    const [a, b] = measured.slice(-2) as [Measured, Measured];
    const slope = (x: number, y: number) => Math.log(y / x) / Math.log(b.sites / a.sites);
    const costs: [string, number, number][] = [...a.listing.keys()].map((label) => [`GET /api/sites ${label} p99`, p99(a.listing.get(label)!), p99(b.listing.get(label)!)]);
    if (a.tls && b.tls) costs.push(['GET /tls/ask p99', p99(a.tls.asks), p99(b.tls.asks)]);
    costs.push(['service RSS', a.rss, b.rss], ["restart to a site's first byte", median(a.startup), median(b.startup)], ['the unfiltered listing on the wire', a.wireGzip, b.wireGzip]);
    if (a.replay && b.replay) costs.push(['replay time per event', median(a.replay.replays) / a.replay.events, median(b.replay.replays) / b.replay.events]);
    for (const [label, x, y] of costs) {
      const s = slope(x, y);
      rows.push({ section: 'Scale', what: `slope of ${label}, ${n(a.sites)} → ${n(b.sites)} sites`, value: s.toFixed(2), reference: `${fmt(x, 2)} → ${fmt(y, 2)}`, target: '≤ 1.0', ok: s <= 1.0 });
    }
  }
  return rows;
}
