/**
 * Hostile input (issue 8): the archive reader and the entry-path parser under random and
 * mutated archives. Each property runs for a fixed time slice (about 20 s in all): never a
 * crash or an untyped error, never a yielded path that escapes, never more than the limits,
 * never a hang, never a temporary file left behind. Also real 1 GB bombs, in bounded memory.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooLargeError } from '../../domain/errors.ts';
import { readArchive } from '../support/archive-entries.ts';
import { archiveProperties } from '../support/archive-properties.ts';
import { chunked, makeTar, makeTarGz, makeTarGzBomb, makeZip, makeZipBomb, type TestEntry } from '../support/archives.ts';

const BASE: TestEntry[] = [
  { type: 'dir', name: 'site' },
  { name: 'site/index.html', content: '<!doctype html><h1>hello</h1>' },
  { type: 'dir', name: 'site/css' },
  { name: 'site/css/a.css', content: 'body { color: red }'.repeat(20) },
  { name: 'site/img.bin', content: Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 13) & 0xff)) },
  { name: `site/${'long-'.repeat(30)}.txt`, content: 'pax or long name' },
];

// Runs until the slice is used up; an interruption is not a failure, a counterexample is.
const slice = (ms: number) => ({ numRuns: 1_000_000, interruptAfterTimeLimit: ms, markInterruptAsFailure: false });

/**
 * fast-check interrupts the run in flight when the slice ends and does not wait for it:
 * that read goes on in the background and removes its spool file when it finishes. Wait
 * for it (bounded) before the next property, whose first check is "no temp file left".
 */
async function settled(dir: string, withinMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = await readdir(dir);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

let tmp: string;
let properties: ReturnType<typeof archiveProperties>;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'fuzz-archive-'));
  properties = archiveProperties(tmp, { tarGz: await makeTarGz(BASE), tar: await makeTar(BASE), zip: await makeZip(BASE) });
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('archive reader under fuzzing', () => {
  it('normaliseEntryPath: only ValidationError, never an unsafe or rewritten path', () => {
    const details = fc.check(properties.paths, slice(1_500));
    expect(details.failed, fc.defaultReportMessage(details)).toBe(false);
    console.info(`paths: ${details.numRuns} runs`);
  });

  it.each(['mutated', 'hostile', 'clean'] as const)('%s archives keep every invariant', async (name) => {
    // The three properties differ only in their generated tuples.
    expect(await settled(tmp)).toEqual([]);
    const details = await fc.check(properties[name] as fc.IAsyncPropertyWithHooks<unknown[]>, slice(4_000));
    expect(details.failed, fc.defaultReportMessage(details)).toBe(false);
    expect(await settled(tmp)).toEqual([]); // the interrupted read cleaned up too
    expect(details.numRuns).toBeGreaterThan(20);
    console.info(`${name}: ${details.numRuns} runs`);
  });

  it.each([
    ['tar.gz', makeTarGzBomb],
    ['zip', makeZipBomb],
  ] as const)('a 1 GB %s bomb stops at the limit in bounded memory', async (_, makeBomb) => {
    const bomb = await makeBomb(1 << 30);
    expect(bomb.length).toBeLessThan(2 << 20);
    const before = process.memoryUsage().rss;
    let delivered = 0;
    let error: unknown;
    try {
      for await (const entry of readArchive(chunked(bomb), { maxEntries: 10, maxBytes: 32 << 20 }, tmp)) {
        for await (const chunk of entry.content) delivered += chunk.length;
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TooLargeError);
    expect(delivered).toBeLessThanOrEqual(32 << 20);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
    expect(await readdir(tmp)).toEqual([]);
  });
});
