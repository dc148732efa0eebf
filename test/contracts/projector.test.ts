/**
 * The projector over the embedded adapters: a catch-up (what `sites replay` runs) reads the
 * log in pages and commits in large batches; whatever the batch size, and in the live
 * loop too, the read model ends as if every event had been applied one at a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { EventStore, EventToAppend } from '../../domain/ports.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { Projector } from '../../host/projector.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import type { ReadModel } from '../../projections/read-model.ts';
import { everything } from './readmodel-batch-contract.ts';
import { history, recordAll } from './readmodel-history.ts';

const dir = mkdtempSync(join(tmpdir(), 'projector-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

const appends = history(600, 5, 3);
const recorded = recordAll(appends).events;
// The appends with the metadata (times) the reference log recorded, so both build the same documents.
let k = 0;
const timed = appends.map((a) => ({ stream: a.stream, events: recorded.slice(k, (k += a.events.length)).map(({ type, data, meta }) => ({ type, data, meta }) as EventToAppend) }));

async function logOf(parts: readonly (typeof timed)[number][], store = openSqliteEventStore(join(dir, `events-${++n}.sqlite`))): Promise<EventStore> {
  if (!closing.includes(store)) closing.push(store);
  for (const a of parts) await store.append(a.stream, a.events, await store.streamRevision(a.stream));
  return store;
}

/** A read model that counts the batches committed into it. */
function counted(model: ReadModel): { model: ReadModel; commits: () => number } {
  let commits = 0;
  const wrapped: ReadModel = Object.create(model);
  wrapped.beginBatch = async () => {
    const batch = await model.beginBatch();
    return { from: batch.from, add: (e) => batch.add(e), commit: (c) => ((commits++), batch.commit(c)), get streams() { return batch.streams; }, get bytes() { return batch.bytes; } };
  };
  return { model: wrapped, commits: () => commits };
}

const readModel = () => {
  const model = openSqliteReadModel(join(dir, `rm-${++n}.db`));
  closing.push(model);
  return model;
};

// Every event in its own `apply`, for reference.
const reference = async () => {
  const model = readModel();
  for (const e of recorded) await model.apply([e], e.position);
  return everything(model, appends);
};

it('catches up in large batches to what one event at a time gives, however large the batches', async () => {
  const expected = await reference();
  const events = await logOf(timed);
  for (const catchUpStreams of [undefined, 150]) {
    const { model, commits } = counted(readModel());
    const applied = await new Projector(events, model, { holder: 'test', catchUpStreams }).catchUp();
    expect(applied).toBe(recorded.length);
    expect(await everything(model, appends)).toEqual(expected);
    // One batch holds the whole log (a few thousand events over ~600 streams), or several of at most 150 streams.
    if (catchUpStreams === undefined) expect(commits()).toBe(1);
    else expect(commits()).toBeGreaterThanOrEqual(Math.ceil(600 / 150));
    expect(await new Projector(events, model, { holder: 'test' }).catchUp()).toBe(0);
  }
}, 60_000);

it('runs the catch-up hook after each committed batch, and a hook that throws stops the catch-up', async () => {
  const events = await logOf(timed);
  const { model, commits } = counted(readModel());
  const seen: number[] = [];
  await new Projector(events, model, { holder: 'test', catchUpStreams: 150 }).catchUp(async () => {
    seen.push(commits());
  });
  // Once per batch, each time after its commit (what `sites replay` renews its lease in).
  expect(seen).toEqual(Array.from({ length: commits() }, (_, i) => i + 1));

  const other = counted(readModel());
  const stopped = new Projector(events, other.model, { holder: 'test', catchUpStreams: 150 }).catchUp(async () => {
    throw new Error('lease lost');
  });
  await expect(stopped).rejects.toThrow('lease lost');
  expect(other.commits()).toBe(1);
}, 60_000);

it('starts behind the log: the live loop rebuilds it in one batch, not one per live window, then commits each append as it comes', async () => {
  // More streams than a live window holds (5,000): in live windows the rebuild writes each
  // stream once per window it appears in.
  const many = history(6_000, 1, 7);
  const all = recordAll(many).events;
  let at = 0;
  const appended = many.map((a) => ({ stream: a.stream, events: all.slice(at, (at += a.events.length)).map(({ type, data, meta }) => ({ type, data, meta }) as EventToAppend) }));
  const events = await logOf(appended.slice(0, -1));
  const { model, commits } = counted(readModel());
  const projector = new Projector(events, model, { holder: 'live' });
  projector.start();
  try {
    const before = appended[appended.length - 2]!.stream;
    await projector.waitFor(before, await events.streamRevision(before), 20_000);
    expect(commits()).toBe(1);
    await logOf(appended.slice(-1), events);
    const last = appended[appended.length - 1]!.stream;
    await projector.waitFor(last, await events.streamRevision(last), 20_000);
    expect(commits()).toBe(2);
  } finally {
    await projector.stop();
  }
  const caughtUp = readModel();
  await new Projector(events, caughtUp, { holder: 'test' }).catchUp();
  expect(await everything(model, many)).toEqual(await everything(caughtUp, many));
}, 60_000);

it('projects in the live loop what one event at a time gives; read-your-writes resolves', async () => {
  const expected = await reference();
  const half = Math.floor(timed.length / 2);
  const events = await logOf(timed.slice(0, half));
  const model = readModel();
  const projector = new Projector(events, model, { holder: 'live' });
  projector.start();
  try {
    // Appends keep coming while the loop projects the first half.
    await logOf(timed.slice(half), events);
    const stream = timed[timed.length - 1]!.stream;
    await projector.waitFor(stream, await events.streamRevision(stream), 20_000);
    expect(projector.isLeader).toBe(true);
    // The waitFor above saw the last stream's last event; every other append came before it.
    expect(await everything(model, appends)).toEqual(expected);
  } finally {
    await projector.stop();
  }
}, 60_000);
