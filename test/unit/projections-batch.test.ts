/**
 * The in-memory half of a projection batch: pages folded one after another give the
 * records one projectBatch over all events gives; stored records are the starting point
 * (events at or below their revision skipped); only moved streams come out as changes.
 */
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../domain/events.ts';
import { batchFold } from '../../projections/batch.ts';
import type { StreamRecord } from '../../projections/documents.ts';
import { projectBatch } from '../../projections/project.ts';
import { history, recordAll } from '../contracts/readmodel-history.ts';

const { events } = recordAll(history(80, 4, 11));

function fold(pages: readonly (readonly Recorded[])[], stored: ReadonlyMap<string, StreamRecord>) {
  const f = batchFold();
  const asked: string[] = [];
  for (const page of pages) {
    const missing = f.missing(page);
    asked.push(...missing);
    f.add(page, new Map(missing.flatMap((s) => (stored.has(s) ? [[s, stored.get(s)!] as const] : []))));
  }
  return { f, asked };
}

const pagesOf = (es: readonly Recorded[], size: number) => Array.from({ length: Math.ceil(es.length / size) }, (_, i) => es.slice(i * size, (i + 1) * size));

describe('batchFold', () => {
  it('folds pages into what one projectBatch over every event gives, loading each stream once', () => {
    const { f, asked } = fold(pagesOf(events, 37), new Map());
    const expected = projectBatch(events, new Map());
    const changes = f.changes();
    expect(new Map(changes.map((c) => [c.after.stream, c.after]))).toEqual(expected);
    expect(changes.every((c) => c.before === undefined)).toBe(true);
    expect(asked.length).toBe(new Set(asked).size);
    expect(f.streams).toBe(expected.size);
  });

  it('starts from the stored records, skips what they already hold, and reports only streams that moved', () => {
    const cut = Math.floor(events.length / 2);
    const stored = projectBatch(events.slice(0, cut), new Map());
    // Pages from before the cut again (already applied), then the rest, each page twice.
    const pages = pagesOf(events.slice(cut - 200), 50).flatMap((p) => [p, p]);
    const { f } = fold(pages, stored);
    const all = new Map([...stored, ...projectBatch(events, new Map())]);
    for (const c of f.changes()) {
      expect(c.after).toEqual(all.get(c.after.stream));
      expect(c.before).toBe(stored.get(c.after.stream));
      expect(c.after.revision).toBeGreaterThan(c.before?.revision ?? -1);
    }
    const moved = new Set(events.slice(cut).map((e) => e.stream));
    expect(new Set(f.changes().map((c) => c.after.stream))).toEqual(moved);
  });
});

describe('batchFold memory estimate', () => {
  const jsonOf = (records: Iterable<StreamRecord>) => [...records].reduce((n, r) => n + (r.doc === null ? 4 : JSON.stringify(r.doc).length), 0);

  it('estimates the memory of its records from their documents (about twice their JSON), growing with the streams it holds', () => {
    const { f } = fold(pagesOf(events, 37), new Map());
    const json = jsonOf(f.records());
    expect(f.bytes).toBeGreaterThan(json);
    expect(f.bytes).toBeLessThan(4 * json + 200 * f.streams);
    const half = fold(pagesOf(events.slice(0, Math.floor(events.length / 4)), 37), new Map()).f;
    expect(half.streams).toBeLessThan(f.streams);
    expect(half.bytes).toBeLessThan(f.bytes);
  });

  it('counts a stored record it holds beside its own as a second record', () => {
    const stored = projectBatch(events, new Map());
    // Every stream loaded from the store (the events again move nothing): each holds its stored record and its own.
    const { f } = fold(pagesOf(events, 37), stored);
    const fresh = fold(pagesOf(events, 37), new Map()).f;
    expect(f.streams).toBe(fresh.streams);
    expect(f.bytes).toBeGreaterThan(1.5 * fresh.bytes);
  });
});
