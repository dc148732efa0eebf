/**
 * The command cycle (app/command.ts) in this process on the embedded adapters: read the
 * stream, fold, prepare, decide, append with the expected revision; a lost race is retried
 * once from a fresh read, then answered 409; the answer waits for the read model
 * (read-your-writes). An event store that lets another writer in first makes the race real.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { siteCommands } from '../../app/aggregates.ts';
import { ConflictError } from '../../domain/errors.ts';
import type { EventStore, EventToAppend } from '../../domain/ports.ts';
import type { SiteCommand } from '../../domain/site/decide.ts';
import type { SiteState } from '../../domain/site/state.ts';
import { siteStream } from '../../domain/streams.ts';
import { openApp, type AppHarness } from '../support/app.ts';

const address = { group: 'race', slug: 'site' };
const actor = { kind: 'user', name: 'tester' } as const;
const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

/** An event store whose next `n` appends to `stream` lose a race: another writer's event lands just before each. */
function racing(events: EventStore, stream: string, n: number, rival: () => EventToAppend): EventStore & { races: number } {
  let left = n;
  const store = Object.create(events) as EventStore & { races: number };
  store.races = 0;
  store.append = async (s, toAppend, expected) => {
    if (s === stream && left > 0) {
      left--;
      store.races++;
      await events.append(s, [rival()], expected);
    }
    return events.append(s, toAppend, expected);
  };
  return store;
}

function publish(n: number, siteId = 1): Extract<SiteCommand, { type: 'PublishSite' }> {
  return {
    type: 'PublishSite',
    address,
    meta: { title: `v${n}` },
    content: { manifest: `m${n}`, files: 1, size: n },
    nowNanos: BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n + BigInt(n),
    newSiteId: siteId,
    versioning: { enabled: true, keep: 5 },
  };
}

async function created(app: AppHarness) {
  await siteCommands(app.deps).handle(address, actor, publish(1));
}

describe('the command cycle', () => {
  it('appends the decided events at the expected revision and answers once the read model has them', async () => {
    const app = openApp();
    opened.push(app);
    const waited: [string, number][] = [];
    const deps = { ...app.deps, waitForProjection: async (stream: string, revision: number) => (waited.push([stream, revision]), app.deps.waitForProjection(stream, revision)) };
    const { before, state, events } = await siteCommands(deps).handle(address, actor, publish(1));
    expect(before.status).toBe('absent');
    expect(state.status).toBe('live');
    expect(events.map((e) => [e.type, e.revision, e.meta.actor])).toEqual([['SitePublished', 0, actor]]);
    expect(waited).toEqual([[siteStream(address), 0]]);
    // Read-your-writes: the document is there the moment the command answered.
    expect((await app.readModel.getSite('race/site'))?.meta.title).toBe('v1');
  });

  it('a decision of no events appends nothing and waits for nothing', async () => {
    const app = openApp();
    opened.push(app);
    await created(app);
    let appends = 0;
    let waits = 0;
    const events = Object.create(app.events) as EventStore;
    events.append = (...args) => (appends++, app.events.append(...args));
    const deps = { ...app.deps, events, waitForProjection: async () => void waits++ };
    // The live files and meta again: nothing to record (spec §4).
    const { events: appended } = await siteCommands(deps).handle(address, actor, { ...publish(1), meta: { title: 'v1' } });
    expect([appended.length, appends, waits]).toEqual([0, 0, 0]);
  });

  it('a lost race is retried once from a fresh read: prepare and decide see the winner’s event', async () => {
    const app = openApp();
    opened.push(app);
    await created(app);
    const stream = siteStream(address);
    const rival = (): EventToAppend => ({ type: 'SitePatched', data: { siteId: 1, meta: { title: 'by the rival', hidden: false } }, meta: { actor, at: new Date().toISOString() } });
    const events = racing(app.events, stream, 1, rival);
    const seen: SiteState[] = [];
    const { events: appended } = await siteCommands({ ...app.deps, events }).handle(address, actor, (state) => {
      seen.push(state);
      return { type: 'PatchSite', address, patch: { description: `after ${state.meta?.title}` } };
    });
    expect(events.races).toBe(1);
    expect(seen.map((s) => s.meta?.title)).toEqual(['v1', 'by the rival']);
    expect(appended.map((e) => [e.type, e.revision])).toEqual([['SitePatched', 2]]);
    expect((await app.readModel.getSite('race/site'))?.meta).toMatchObject({ title: 'by the rival', description: 'after by the rival' });
  });

  it('a race lost twice is answered 409 conflict, and the loser appended nothing', async () => {
    const app = openApp();
    opened.push(app);
    await created(app);
    const stream = siteStream(address);
    const rival = (): EventToAppend => ({ type: 'SitePatched', data: { siteId: 1, meta: { title: 'rival', hidden: false } }, meta: { actor, at: new Date().toISOString() } });
    const events = racing(app.events, stream, 2, rival);
    const attempt = siteCommands({ ...app.deps, events }).handle(address, actor, { type: 'PatchSite', address, patch: { description: 'mine' } });
    await expect(attempt).rejects.toBeInstanceOf(ConflictError);
    const history = (await app.events.readStream(stream)).events;
    expect(history.map((e) => e.type)).toEqual(['SitePublished', 'SitePatched', 'SitePatched']);
    expect(history.every((e) => e.type !== 'SitePatched' || (e.data as { meta: { title: string } }).meta.title === 'rival')).toBe(true);
  });

  it('a domain refusal appends nothing and is not retried', async () => {
    const app = openApp();
    opened.push(app);
    let decisions = 0;
    const attempt = siteCommands(app.deps).handle(address, actor, () => (decisions++, { type: 'RestoreSite', address }));
    await expect(attempt).rejects.toThrow(/no site race\/site/);
    expect(decisions).toBe(1);
    expect(await app.events.streamRevision(siteStream(address))).toBe(-1);
  });
});
