/**
 * `GET /tls/ask` (spec §15) at 10,000 sites: the question a TLS proxy asks on the first
 * handshake for every new name, live sites and strangers' names alike. Measured twice:
 * in-process (the app/ query on the SQLite read model) against a bare `getSite` lookup,
 * and over HTTP on the real service process against `GET /healthz` on the same
 * connection. One request at a time: this is latency, not throughput.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askCertificate, type CertificateNames } from '../../app/tls/ask.ts';
import { fullPath, hostLabels, siteAddress } from '../../domain/paths.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { Projector } from '../../host/projector.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { percentile } from '../support/load.ts';
import { startService } from '../support/service.ts';
import { seedDomain, seedDomains, seedSite, seedSites } from './seed.ts';
import { fmt, prng } from './support.ts';
import type { Row } from './table.ts';

export type TlsAskParams = { readonly sites: number; readonly asks: number };

const BASE = 'localhost';
/** Every this-many-th seeded site has a custom domain (1,000 domains at 10,000 sites). */
const DOMAIN_EVERY = 10;

/**
 * The names asked about, in a fixed shuffled order: half live sites (any depth the seed
 * made), a quarter plausible names of no site (one lookup each), a quarter others: over-deep
 * names and the apex (answered before any lookup), and names under no apex, attached to a
 * seeded site or to none (one lookup by custom domain each).
 */
function askedNames(sites: number, count: number): { domain: string; expect: boolean; path?: string }[] {
  const rand = prng(7);
  const pick = () => Math.floor(rand() * sites);
  const out: { domain: string; expect: boolean; path?: string }[] = [];
  for (let i = 0; i < count; i++) {
    const s = seedSite(pick());
    const address = siteAddress(s.group, s.slug);
    const live = `${hostLabels(address)}.${BASE}`;
    const kind = i % 4;
    if (kind <= 1) out.push({ domain: live, expect: true, path: fullPath(address) });
    else if (kind === 2) out.push({ domain: `no-${live}`, expect: false, path: fullPath(siteAddress(s.group, `no-${s.slug}`)) });
    else {
      const attached = Math.floor(pick() / DOMAIN_EVERY) * DOMAIN_EVERY;
      const site = seedSite(attached);
      const others = [
        { domain: `x.y.${live}`, expect: false },
        { domain: BASE, expect: true },
        { domain: seedDomain(attached), expect: true, path: fullPath(siteAddress(site.group, site.slug)) },
        { domain: `${s.slug}.example.com`, expect: false, path: fullPath(siteAddress(s.group, `no-${s.slug}`)) },
        // Spec §14: the permalink of the live revision (number 1 of a site published once), and a preview no site has; one lookup each.
        { domain: `v1--${live}`, expect: true, path: fullPath(address) },
        { domain: `pr-1--${live}`, expect: false, path: fullPath(address) },
      ];
      out.push(others[Math.floor(i / 4) % others.length]!);
    }
  }
  return out;
}

function get(agent: Agent, port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { Host: `127.0.0.1:${port}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Times `measured` and `reference` once per item, alternately, so the two see the same
 * moments of a shared machine; after `warm` untimed rounds of both. The sorted milliseconds.
 */
async function paired<T>(items: readonly T[], measured: (item: T) => Promise<unknown>, reference: (item: T) => Promise<unknown>, warm: number): Promise<{ measured: number[]; reference: number[] }> {
  for (let i = 0; i < warm; i++) {
    await measured(items[i % items.length]!);
    await reference(items[i % items.length]!);
  }
  const out = { measured: [] as number[], reference: [] as number[] };
  for (const item of items) {
    let t0 = performance.now();
    await measured(item);
    out.measured.push(performance.now() - t0);
    t0 = performance.now();
    await reference(item);
    out.reference.push(performance.now() - t0);
  }
  out.measured.sort((a, b) => a - b);
  out.reference.sort((a, b) => a - b);
  return out;
}

const spread = (t: number[]) => `p50 ${fmt(percentile(t, 50), 3)} ms, p99 ${fmt(percentile(t, 99), 3)} ms`;

export async function benchTlsAsk(p: TlsAskParams, log: (s: string) => void): Promise<Row[]> {
  const seedDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'sites-bench-tls-seed-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'sites-bench-tls-'));
  const rows: Row[] = [];
  try {
    log(`tls ask: seeding ${p.sites} sites`);
    await seedSites(seedDir, p.sites, 1);
    log(`tls ask: attaching ${Math.ceil(p.sites / DOMAIN_EVERY)} custom domains`);
    await seedDomains(seedDir, p.sites, DOMAIN_EVERY);
    await cp(seedDir, dataDir, { recursive: true });
    await rm(seedDir, { recursive: true, force: true });
    const asked = askedNames(p.sites, p.asks);

    // In-process: the query itself on the read model the service would use.
    const events = openSqliteEventStore(join(dataDir, 'events.sqlite'));
    const readModel = openSqliteReadModel(join(dataDir, 'readmodel.sqlite'));
    try {
      await new Projector(events, readModel, { holder: 'bench' }).catchUp();
      const names: CertificateNames = { apexes: [BASE], direct: ['127.0.0.1'], baseDomain: BASE, controlDomain: BASE };
      for (const a of asked.slice(0, 500)) {
        if ((await askCertificate({ queries: readModel }, names, a.domain)) !== a.expect) throw new Error(`tls ask: ${a.domain} should be ${a.expect}`);
      }
      // The reference looks up the same site path (or one of no site, for a name refused unread).
      const { measured: query, reference: floor } = await paired(asked, (a) => askCertificate({ queries: readModel }, names, a.domain), (a) => readModel.getSite(a.path ?? 'none'), 2000);
      rows.push({
        section: 'TLS ask',
        what: `askCertificate in-process at ${p.sites} sites (${p.asks} names: ½ live sites, ¼ unknown sites, ¼ over-deep, apex, custom domains of ${Math.ceil(p.sites / DOMAIN_EVERY)} and names of none, permalinks and previews)`,
        value: spread(query),
        reference: `readModel.getSite alone: ${spread(floor)}`,
        ratio: percentile(query, 99) / percentile(floor, 99),
        target: 'p99 < 1 ms',
        ok: percentile(query, 99) < 1,
      });
    } finally {
      await events.close();
      await readModel.close();
    }

    // Over HTTP: the real service, asked on its listen address as Caddy asks it.
    const svc = await startService({ dataDir });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ask = (domain: string) => get(agent, svc.port, `/tls/ask?domain=${encodeURIComponent(domain)}`);
      for (const a of asked.slice(0, 500)) {
        const status = await ask(a.domain);
        if (status !== (a.expect ? 200 : 404)) throw new Error(`GET /tls/ask?domain=${a.domain}: ${status}`);
      }
      const { measured: http, reference: health } = await paired(asked, (a) => ask(a.domain), () => get(agent, svc.port, '/healthz'), 2000);
      rows.push({
        section: 'TLS ask',
        what: `GET /tls/ask over HTTP at ${p.sites} sites (same names, one keep-alive connection)`,
        value: spread(http),
        reference: `GET /healthz: ${spread(health)}`,
        ratio: percentile(http, 99) / percentile(health, 99),
        target: 'p99 < 5 ms',
        ok: percentile(http, 99) < 5,
      });
    } finally {
      agent.destroy();
      await svc.stop();
    }
  } finally {
    await rm(seedDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
  return rows;
}
