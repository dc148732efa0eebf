/**
 * Seeds many small sites in-process, so the listing and replay benchmarks get 10,000
 * sites in seconds. The measurements themselves go through the HTTP API afterwards.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Identity } from '../../domain/auth.ts';
import { attachDomain } from '../../app/domains/attach.ts';
import { commitFiles } from '../../app/publish/commit.ts';
import type { IncomingFile } from '../../app/publish/publish-site.ts';
import type { Recorded, SiteEvent } from '../../domain/events.ts';
import { fullPath, siteAddress } from '../../domain/paths.ts';
import { nowNanos } from '../../domain/revision-id.ts';
import { decideSite, needsNewSiteId, siteDecider } from '../../domain/site/decide.ts';
import { fold } from '../../domain/decider.ts';
import { sequenceStream, siteStream } from '../../domain/streams.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { loadConfig } from '../../host/config.ts';
import { createService } from '../../host/service.ts';
import { prng } from './support.ts';

const ADMIN: Identity = { principal: { kind: 'admin' }, actor: { kind: 'user', name: 'bench' }, via: 'user', name: 'bench' };
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa'];
export const SEED_TAGS = Array.from({ length: 20 }, (_, i) => `tag${i}`);
export const SEED_GROUPS = Array.from({ length: 50 }, (_, i) => `team${i % 10}/proj${i}`);

/** The site number `i`: group, slug, title words and tags, all deterministic. */
export function seedSite(i: number): { group: string; slug: string; title: string; tags: string[] } {
  const rand = prng(i + 17);
  const w = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  return {
    group: SEED_GROUPS[i % SEED_GROUPS.length]!,
    slug: `site-${i}`,
    title: `${w()} ${w()} ${w()} ${i}`,
    tags: [SEED_TAGS[i % SEED_TAGS.length]!, SEED_TAGS[(i * 7 + 3) % SEED_TAGS.length]!].filter((t, k, a) => a.indexOf(t) === k),
  };
}

async function* indexOnly(html: string): AsyncGenerator<IncomingFile> {
  yield { path: 'index.html', content: { kind: 'stream', source: Readable.from([Buffer.from(html)]) } };
}

/**
 * Seeds sites `0..count-1`, each published `rounds` times (a republish adds events but no
 * site). Site 0 goes through the whole publish command (blobs, manifest, id allocation,
 * events); the others reuse its stored content and append the events the site decider
 * decides for them, one append per site stream as the command does. Only the id
 * allocation loop is skipped (one append reserves every id): allocating 10,000 ids one
 * by one re-reads the whole sequence stream each time, which made seeding take minutes.
 * The read model is left to the service's projector.
 */
export async function seedSites(dataDir: string, count: number, rounds = 1): Promise<{ ms: number; events: number }> {
  const config = loadConfig({ SITES_DATA_DIR: dataDir, SITES_LOG_LEVEL: 'error', SITES_VERSIONING_ENABLED: 'true', SITES_VERSIONING_KEEP: '2' });
  const service = await createService(config, { project: 'catch-up' });
  const t0 = performance.now();
  const { events } = service.stack;
  const meta = (at: string) => ({ actor: ADMIN.actor, at });
  try {
    const first = seedSite(0);
    const done = await commitFiles(
      service.deps,
      ADMIN.actor,
      { address: siteAddress(first.group, first.slug), meta: { title: first.title, tags: first.tags } },
      indexOnly('<!doctype html><title>listing benchmark</title><p>hello</p>'),
    );
    const { id: _id, ...content } = done.revision;
    const seq = sequenceStream('site');
    const { revision: seqRev } = await events.readStream(seq);
    const firstId = seqRev + 2;
    await events.append(seq, Array.from({ length: count - 1 }, (_, k) => ({ type: 'IdAllocated', data: { id: firstId + k }, meta: meta(new Date().toISOString()) })), seqRev);
    for (let round = 0; round < rounds; round++) {
      for (let i = round === 0 ? 1 : 0; i < count; i++) {
        const s = seedSite(i);
        const address = siteAddress(s.group, s.slug);
        const stream = siteStream(address);
        const { events: history, revision } = await events.readStream(stream);
        const state = fold(siteDecider, history as Recorded<SiteEvent>[]);
        const decided = decideSite(
          {
            type: 'PublishSite',
            address,
            meta: { title: s.title, tags: s.tags, description: `site ${i} of the listing benchmark, round ${round}` },
            content,
            nowNanos: nowNanos(),
            newSiteId: needsNewSiteId(state) ? firstId + i - 1 : undefined,
            versioning: config.versioning,
          },
          state,
        );
        const at = new Date().toISOString();
        await events.append(stream, decided.map((e) => ({ ...e, meta: meta(at) })), revision);
      }
    }
  } finally {
    await service.close();
  }
  let total = 0;
  const reopened = openSqliteEventStore(join(dataDir, 'events.sqlite'));
  for (let after: string | undefined; ; ) {
    const page = await reopened.readAll(after, 5000);
    if (page.length === 0) break;
    total += page.length;
    after = page[page.length - 1]!.position;
  }
  await reopened.close();
  return { ms: performance.now() - t0, events: total };
}

/** The custom domain the bench attaches to seeded site `i` (every `every`-th site has one). */
export const seedDomain = (i: number): string => `site${i}.custom-domain.example`;

/**
 * Attaches `seedDomain(i)` to every `every`-th seeded site through the attach use case (claim
 * stream, site stream, projection), as an admin would one by one.
 */
export async function seedDomains(dataDir: string, count: number, every: number): Promise<void> {
  const config = loadConfig({ SITES_DATA_DIR: dataDir, SITES_LOG_LEVEL: 'error' });
  const service = await createService(config, { project: 'catch-up' });
  try {
    for (let i = 0; i < count; i += every) {
      const s = seedSite(i);
      await attachDomain(service.deps, ADMIN, { site: fullPath(siteAddress(s.group, s.slug)), domain: seedDomain(i) });
    }
  } finally {
    await service.close();
  }
}
