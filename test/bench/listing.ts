/**
 * Listing and replay benchmarks on the embedded stack: `GET /api/sites` latency over
 * 10,000 sites (through HTTP, on the real service process), then rebuilding the read
 * model from the log (`sites replay`: reset + projector catch-up) against only reading it.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { percentile } from '../support/load.ts';
import { startService } from '../support/service.ts';
import { replayInChild } from './scale.ts';
import { seedSite, seedSites } from './seed.ts';
import { fmt, timed } from './support.ts';
import type { Row } from './table.ts';

export type ListingParams = { readonly sites: number; readonly rounds: number; readonly queriesEach: number; readonly runs: number };

function get(agent: Agent, port: number, path: string, key: string): Promise<{ status: number; body: string }> {
  return send(agent, port, 'GET', path, key);
}

function send(agent: Agent, port: number, method: string, path: string, key: string, json?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { Host: `localhost:${port}`, Authorization: `Bearer ${key}`, ...(json ? { 'Content-Type': 'application/json' } : {}) };
    const req = request({ host: '127.0.0.1', port, path, method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(json);
  });
}

export async function benchListingAndReplay(p: ListingParams, log: (s: string) => void): Promise<Row[]> {
  // Seeding appends one commit per site; on tmpfs the event log's fsyncs cost nothing, then
  // the data dir is copied to disk, where the measurements run.
  const seedDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'sites-bench-seed-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'sites-bench-list-'));
  const rows: Row[] = [];
  try {
    log(`seeding ${p.sites} sites × ${p.rounds} publishes`);
    const seeded = await seedSites(seedDir, p.sites, p.rounds);
    await cp(seedDir, dataDir, { recursive: true });
    await rm(seedDir, { recursive: true, force: true });
    log(`seeded ${seeded.events} events in ${fmt(seeded.ms / 1000)} s`);

    const svc = await startService({ dataDir });
    try {
      const key = await svc.createKey(['--name', 'bench', '--admin']);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      // The service projects the seeded log at start; wait for it before measuring.
      const caughtUp = await timed(async () => {
        for (;;) {
          const r = await get(agent, svc.port, '/api/sites?limit=1', key);
          if (r.status === 200 && (JSON.parse(r.body) as { count: number }).count >= p.sites) return;
          await new Promise((res) => setTimeout(res, 100));
        }
      });
      log(`service projected the log in ${fmt(caughtUp.ms / 1000)} s`);
      const queries = [
        { label: 'no filter (first 50 of 10,000; tree of all)', path: '/api/sites?limit=50' },
        { label: 'search q=alpha', path: '/api/sites?q=alpha&limit=50' },
        { label: 'tag=tag3', path: '/api/sites?tag=tag3&limit=50' },
        { label: 'group=team3', path: '/api/sites?group=team3&limit=50' },
        { label: 'q + tag + group', path: '/api/sites?q=bravo&tag=tag7&group=team7&limit=50' },
      ];
      for (const q of queries) {
        const times: number[] = [];
        let count = 0;
        for (let i = 0; i < p.queriesEach + 5; i++) {
          const t0 = performance.now();
          const r = await get(agent, svc.port, q.path, key);
          const ms = performance.now() - t0;
          if (r.status !== 200) throw new Error(`${q.path}: ${r.status} ${r.body}`);
          count = (JSON.parse(r.body) as { count: number }).count;
          if (i >= 5) times.push(ms); // the first few warm the caches
        }
        times.sort((a, b) => a - b);
        rows.push({ section: 'Listing', what: `GET /api/sites ${q.label} → ${count} matches`, value: `p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms`, reference: `${p.sites} sites, ${p.queriesEach} queries` });
      }
      // Answers are cached until the read model moves: the first listing after a write is
      // computed afresh, and that is measured here (a title patch before each query).
      const site = seedSite(0);
      const afterWrite: number[] = [];
      for (let i = 0; i < 25; i++) {
        const patched = await send(agent, svc.port, 'PATCH', `/ingest/sites/${site.group}/${site.slug}`, key, JSON.stringify({ title: `${site.title} ${i}` }));
        if (patched.status !== 200) throw new Error(`patch: ${patched.status} ${patched.body}`);
        const t0 = performance.now();
        const r = await get(agent, svc.port, queries[0]!.path, key);
        const ms = performance.now() - t0;
        if (r.status !== 200) throw new Error(`listing after a write: ${r.status} ${r.body}`);
        if (!r.body.includes(`"title":"${site.title} ${i}"`)) throw new Error('the listing after a write misses the write');
        afterWrite.push(ms);
      }
      afterWrite.sort((a, b) => a - b);
      rows.push({ section: 'Listing', what: `GET /api/sites ${queries[0]!.label}, the first after a write (not cached)`, value: `p50 ${fmt(percentile(afterWrite, 50))} ms, p99 ${fmt(percentile(afterWrite, 99))} ms`, reference: `${p.sites} sites, ${afterWrite.length} writes` });
      agent.destroy();
    } finally {
      await svc.stop();
    }

    log(`replaying (${p.runs} runs, in a process of its own)`);
    const r = await replayInChild(dataDir, p.runs);
    const rate = (ms: number) => r.events / (ms / 1000);
    const ratios = r.replays.map((ms, i) => r.reads[i]! / ms);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    rows.push({
      section: 'Replay',
      what: `rebuild the read model from ${r.events} events (reset + catch-up; median of ${r.replays.length}, ratios ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
      value: `${Math.round(rate(median(r.replays)))} events/s (${fmt(median(r.replays) / 1000, 2)} s), peak RSS ${fmt(r.peakMb)} MB`,
      reference: `readAll only: ${Math.round(rate(median(r.reads)))} events/s (${fmt(median(r.reads) / 1000, 2)} s)`,
      ratio: median(ratios),
      target: '≥ 0.5×',
      ok: median(ratios) >= 0.5,
    });
  } finally {
    await rm(seedDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
  return rows;
}
