/**
 * The activity log at 1,000,000 events (spec §16, issue 28): every filter of
 * `GET /api/events` as the route runs it (the use case over the embedded store), p99
 * against 50 ms; the reference is the unfiltered first page measured in the same run. The
 * store is filled through its projection batch (what the projector writes), from a log of
 * synthetic events shaped like a busy service: 10,000 sites in 50 groups publishing,
 * archiving and rolling back over a year, keys, connections. Also the NDJSON export of
 * the whole log: its rate, and how much the heap grows while it runs (bounded: a page).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportActivity, listActivity, type ActivityInput } from '../../app/activity/activity.ts';
import type { Identity } from '../../domain/auth.ts';
import type { Actor, Recorded } from '../../domain/events.ts';
import { siteStream } from '../../domain/streams.ts';
import { openSqliteActivityStore } from '../../host/activity/sqlite.ts';
import { percentile } from '../support/load.ts';
import { prng } from './support.ts';
import { fmt } from './support.ts';
import type { Row } from './table.ts';

export type ActivityParams = { readonly events: number; readonly queries: number };

const ADMIN: Identity = { principal: { kind: 'admin' }, actor: { kind: 'user', name: 'bench' }, via: 'user', name: 'bench' };
const START = Date.parse('2025-01-01T00:00:00.000Z');
const YEAR_MS = 365 * 86_400_000;

/** Event `n` of the synthetic log (1-based position), deterministic. */
function* syntheticLog(count: number): Generator<Recorded> {
  const rand = prng(28);
  const keys: Actor[] = Array.from({ length: 100 }, (_, i) => ({ kind: 'key', id: i + 1, name: `ci-${i + 1}` }));
  const users: Actor[] = Array.from({ length: 20 }, (_, i) => ({ kind: 'user', name: `person${i}` }));
  const bots: Actor[] = Array.from({ length: 5 }, (_, i) => ({ kind: 'connection', id: `conn${i}`, name: 'Claude', user: `person${i}` }));
  const revisions = new Map<number, number>();
  for (let n = 1; n <= count; n++) {
    const at = new Date(START + Math.floor((n / count) * YEAR_MS)).toISOString();
    const r = rand();
    const actor = r < 0.7 ? keys[Math.floor(rand() * keys.length)]! : r < 0.95 ? users[Math.floor(rand() * users.length)]! : bots[Math.floor(rand() * bots.length)]!;
    const meta = { actor, at };
    const base = { revision: 0, position: String(n), meta };
    const kind = rand();
    if (kind < 0.96) {
      const site = Math.floor(rand() * 10_000);
      const group = `team${site % 10}/proj${site % 50}`;
      const stream = siteStream({ group, slug: `site-${site}` });
      const rev = (revisions.get(site) ?? -1) + 1;
      revisions.set(site, rev);
      const revisionId = `2025${String(n).padStart(10, '0')}.000000000Z`;
      const k = rand();
      if (k < 0.5) {
        yield { ...base, stream, revision: rev, type: 'SitePublished', data: { siteId: site, group, slug: `site-${site}`, created: rev === 0, revision: { id: revisionId, manifest: 'm'.repeat(64), files: 40, size: 1_000_000 }, meta: { title: `Site ${site}`, hidden: false }, filesAdded: 1, filesChanged: 2, filesRemoved: 0, bytesAdded: 100, bytesRemoved: 0 } } as Recorded;
      } else if (k < 0.9) yield { ...base, stream, revision: rev, type: 'SiteArchived', data: { siteId: site, revisionId } } as Recorded;
      else if (k < 0.97) yield { ...base, stream, revision: rev, type: 'SitePatched', data: { siteId: site, meta: { title: `Site ${site}`, hidden: false } } } as Recorded;
      else if (k < 0.995) yield { ...base, stream, revision: rev, type: 'SiteRolledBack', data: { siteId: site, revisionId, previousRevisionId: revisionId } } as Recorded;
      else yield { ...base, stream, revision: rev, type: 'SiteQuarantined', data: { siteId: site } } as Recorded;
    } else if (kind < 0.99) {
      yield { ...base, stream: `key-${n}`, type: 'KeyUsed', data: { id: 1 + (n % 100), at } } as Recorded;
    } else {
      yield { ...base, stream: `key-${n}`, type: rand() < 0.7 ? 'KeyIssued' : 'KeyRevoked', data: { id: n, name: `key ${n}`, admin: false, grants: [], tokenHash: 'f'.repeat(64) } } as Recorded;
    }
  }
}

export async function benchActivity(p: ActivityParams, log: (s: string) => void): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sites-bench-activity-'));
  const store = openSqliteActivityStore(join(dir, 'activity.sqlite'));
  const rows: Row[] = [];
  try {
    log(`activity: projecting ${p.events.toLocaleString('en')} events into the store`);
    const t0 = performance.now();
    const batch = await store.beginBatch();
    let page: Recorded[] = [];
    for (const e of syntheticLog(p.events)) {
      page.push(e);
      if (page.length === 1000) {
        await batch.add(page);
        page = [];
      }
    }
    if (page.length) await batch.add(page);
    await batch.commit(String(p.events));
    const loadS = (performance.now() - t0) / 1000;
    log(`activity: ${fmt(p.events / loadS, 0)} events/s into the store (${fmt(loadS, 1)} s)`);

    const deps = { activity: store };
    const day = (d: number) => new Date(START + d * 86_400_000).toISOString();
    const measure = async (input: ActivityInput) => {
      const times: number[] = [];
      let n = 0;
      for (let i = 0; i < p.queries + 5; i++) {
        const t = performance.now();
        const { events } = await listActivity(deps, ADMIN, input);
        const ms = performance.now() - t;
        n = events.length;
        if (i >= 5) times.push(ms); // the first few warm the page cache
      }
      times.sort((a, b) => a - b);
      return { p50: percentile(times, 50), p99: percentile(times, 99), n };
    };
    const reference = await measure({});
    const deepCursor = (await listActivity(deps, ADMIN, { types: ['SitePublished'], limit: 500 })).next!;
    const queries: { label: string; input: ActivityInput }[] = [
      { label: 'no filter (the first page of 100)', input: {} },
      { label: 'type=SiteRolledBack (2.5% of events)', input: { types: ['SiteRolledBack'] } },
      { label: 'type=SitePublished,SitePatched (two types, merged)', input: { types: ['SitePublished', 'SitePatched'] } },
      { label: 'actor=key:17', input: { actor: 'key:17' } },
      { label: 'actor=person3 (a user and their MCP connection)', input: { actor: 'person3' } },
      { label: 'site=team3 (a group subtree: a tenth of the sites)', input: { site: 'team3' } },
      { label: 'site=team3/proj13/site-4213 (one site)', input: { site: 'team3/proj13/site-4213' } },
      { label: 'since/until: one day in the middle of the year', input: { since: day(180), until: day(181) } },
      { label: 'since: the last week', input: { since: day(358) } },
      { label: 'until: a day in the first month', input: { until: day(20) } },
      { label: 'site=team3 + type=SitePublished + since a day', input: { site: 'team3', types: ['SitePublished'], since: day(200) } },
      { label: 'actor=key:17 + site=team7 + until', input: { actor: 'key:17', site: 'team7', until: day(300) } },
      { label: 'type=SitePublished, a page 500 entries deep (cursor)', input: { types: ['SitePublished'], cursor: deepCursor } },
    ];
    for (const q of queries) {
      const r = q.label.startsWith('no filter') ? reference : await measure(q.input);
      rows.push({
        section: 'Activity',
        what: `GET /api/events ${q.label} → ${r.n}`,
        value: `p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`,
        reference: `unfiltered page p99 ${fmt(reference.p99, 2)} ms (${p.events.toLocaleString('en')} events)`,
        ratio: r.p99 / reference.p99,
        target: 'p99 < 50 ms',
        ok: r.p99 < 50,
      });
    }

    // The export: every event, oldest first, a page at a time.
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let peak = heapBefore;
    const t1 = performance.now();
    let exported = 0;
    for await (const entry of exportActivity(deps, ADMIN, {})) {
      exported++;
      if (entry.id === '') throw new Error('unreachable');
      if (exported % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    const exportS = (performance.now() - t1) / 1000;
    rows.push({
      section: 'Activity',
      what: `NDJSON export of all ${exported.toLocaleString('en')} entries (use case, in pages of 500)`,
      value: `${fmt(exported / exportS, 0)} entries/s, heap +${fmt((peak - heapBefore) / 1024 / 1024, 1)} MB at most`,
      reference: `store filled at ${fmt(p.events / loadS, 0)} events/s`,
      ratio: exported / exportS / (p.events / loadS),
    });
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
