/**
 * The archive reader's fuzzing helpers and fast-check properties, shared by the quick unit run
 * (test/unit/archive-fuzz.test.ts) and the long faults run (test/faults/fuzz-archive.test.ts).
 * Apart from archives.ts: building the arbitraries takes about a second of CPU (the binary
 * string one), which every test importing an archive builder would pay otherwise.
 */
import { readdirSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { DomainError, TooLargeError, ValidationError } from '../../domain/errors.ts';
import { normaliseEntryPath, type ArchiveLimits } from '../../host/archive/index.ts';
import { entrySegments } from '../../host/archive/paths.ts';
import { readArchive } from './archive-entries.ts';
import { bytesOf, chunked, makeRawZip, makeTarGz, UNIX_MODES, type RawZipEntry, type TestEntry } from './archives.ts';

/** One byte-level change; `at` is taken modulo the length, negative counts from the end. */
export type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert' | 'overwrite'; at: number; bytes: Uint8Array };

export function mutate(buffer: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = Buffer.from(buffer);
  for (const m of mutations) {
    if (out.length === 0) break;
    const at = ((m.at % out.length) + out.length) % out.length;
    if (m.kind === 'flip') out[at] = out[at]! ^ (1 << m.bit);
    else if (m.kind === 'truncate') out = out.subarray(0, at);
    else if (m.kind === 'insert') out = Buffer.concat([out.subarray(0, at), m.bytes, out.subarray(at)]);
    else out.set(m.bytes.subarray(0, out.length - at), at);
  }
  return out;
}

/** What a yielded path must always be: relative, no `.`/`..`/empty segment, no NUL or backslash. */
export function isSafeEntryPath(path: string): boolean {
  if (path === '' || path.includes('\0') || path.includes('\\') || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export type Probe = {
  entries: { path: string; size: number }[];
  /** Bytes handed to the consumer over all entries. */
  delivered: number;
  error?: unknown;
};

/**
 * Reads an archive like the publish handler would (every entry fully), recording what came
 * out and how it ended. A hang is reported as an error rather than stalling the fuzzer.
 */
export async function probeArchive(
  read: (source: Readable) => AsyncGenerator<{ path: string; content: AsyncIterable<Uint8Array> }>,
  archive: Buffer,
  chunkSize: number,
  timeoutMs = 10_000,
): Promise<Probe> {
  const probe: Probe = { entries: [], delivered: 0 };
  const run = (async () => {
    for await (const entry of read(chunked(archive, chunkSize))) {
      let size = 0;
      for await (const chunk of entry.content) {
        size += (chunk as Buffer).length;
        probe.delivered += (chunk as Buffer).length;
      }
      probe.entries.push({ path: entry.path, size });
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`archive reader hung for ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([run, hang]);
  } catch (error) {
    probe.error = error;
  } finally {
    clearTimeout(timer);
  }
  return probe;
}

const PATH_PIECES = ['a', 'b.html', '.', '..', '/', '//', '\\', ':', 'C:', '\0', '...', 'é', ' ', './', '../', '%2e%2e'];

/** Raw entry names, biased towards the characters that make paths dangerous. */
export const rawNameArb: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...PATH_PIECES), { maxLength: 8 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 24 }),
);

/** Random limits small enough to be hit by the generated archives. */
export const limitsArb: fc.Arbitrary<ArchiveLimits> = fc.record({
  maxEntries: fc.integer({ min: 1, max: 30 }),
  maxBytes: fc.integer({ min: 0, max: 60_000 }),
});

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.integer({ min: -400, max: 1 << 20 }), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.integer({ min: -400, max: 1 << 20 }) }),
  fc.record({
    kind: fc.constantFrom('insert' as const, 'overwrite' as const),
    at: fc.integer({ min: -400, max: 1 << 20 }),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
);
export const mutationsArb = fc.array(mutationArb, { minLength: 1, maxLength: 4 });

const contentArb = fc.oneof(
  fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: 0, max: 40_000 }).map((size) => Buffer.alloc(size, 0x61)), // compresses well: hits maxBytes
);

/** Entries of every kind with hostile names, for random (not mutated) archives. */
export const hostileEntriesArb: fc.Arbitrary<TestEntry[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ name: rawNameArb.filter((n) => !n.endsWith('/')), content: contentArb }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('dir' as const), name: rawNameArb }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('symlink' as const, 'hardlink' as const), name: rawNameArb, target: rawNameArb }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('chardev' as const, 'blockdev' as const, 'fifo' as const), name: rawNameArb }) },
  ),
  { maxLength: 12 },
);

/** Safe, unique file paths by construction (directory segments never contain the ".f" of file names). */
export const cleanEntriesArb: fc.Arbitrary<TestEntry[]> = fc
  .uniqueArray(fc.array(fc.stringMatching(/^[a-z]{1,3}$/), { minLength: 1, maxLength: 3 }), {
    selector: (segments) => segments.join('/'),
    maxLength: 12,
  })
  .chain((paths) =>
    fc.tuple(...paths.map(() => contentArb)).map((contents) =>
      paths.map((segments, i): TestEntry => ({ name: `${i % 2 ? './' : ''}${segments.join('/')}.f`, content: contents[i] })),
    ),
  );

/** The same entries as a .tar.gz (pax names: any string survives) or as a hand-written zip. */
export async function buildArchive(format: 'tar.gz' | 'zip', entries: readonly TestEntry[]): Promise<Buffer> {
  if (format === 'tar.gz') return makeTarGz(entries, { pax: true });
  return makeRawZip(
    entries.map((entry): RawZipEntry => {
      if (entry.type === 'dir') return { name: `${entry.name}/`, mode: UNIX_MODES.dir };
      if (entry.type === 'symlink' || entry.type === 'hardlink') return { name: entry.name, data: Buffer.from(entry.target), mode: UNIX_MODES.symlink };
      if (entry.type !== undefined && entry.type !== 'file') return { name: entry.name, mode: UNIX_MODES[entry.type] };
      return { name: entry.name, data: bytesOf(entry.content) };
    }),
  );
}

/** Breaks a fast-check run with a readable reason (no vitest `expect` here: fast-check shrinks on throw). */
function check(condition: boolean, reason: string, detail?: unknown): void {
  if (!condition) throw new Error(`${reason}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
}

/** The invariants every read must keep, whatever the input. */
export function checkProbe(probe: Probe, limits: ArchiveLimits, tmpDir: string): void {
  check(probe.error === undefined || probe.error instanceof DomainError, 'a non-domain error escaped', String(probe.error));
  for (const { path } of probe.entries) check(isSafeEntryPath(path), 'an unsafe path was yielded', path);
  check(new Set(probe.entries.map((e) => e.path)).size === probe.entries.length, 'a path was yielded twice');
  check(probe.delivered <= limits.maxBytes, 'more than maxBytes delivered', { delivered: probe.delivered, limits });
  check(probe.entries.length <= limits.maxEntries, 'more than maxEntries yielded');
  check(readdirSync(tmpDir).length === 0, 'a temporary file was left behind', readdirSync(tmpDir));
}

const read = (limits: ArchiveLimits, tmpDir: string) => (source: Readable) => readArchive(source, limits, tmpDir);
const formatArb = fc.constantFrom('tar.gz' as const, 'zip' as const);
const chunkArb = fc.constantFrom(1, 7, 512, 65_536);

/** Properties of the archive reader and of the path parser, to run with any number of runs. */
export function archiveProperties(tmpDir: string, bases: { tarGz: Buffer; tar: Buffer; zip: Buffer }) {
  return {
    /** normaliseEntryPath: only ValidationError, and what it returns is safe, canonical and faithful. */
    paths: fc.property(rawNameArb, (raw) => {
      let path: string;
      try {
        path = normaliseEntryPath(raw);
      } catch (error) {
        check(error instanceof ValidationError, 'normaliseEntryPath threw a non-ValidationError', String(error));
        return;
      }
      check(isSafeEntryPath(path), 'normaliseEntryPath returned an unsafe path', { raw, path });
      check(normaliseEntryPath(path) === path, 'normaliseEntryPath is not idempotent', { raw, path });
      const kept = raw.split('/').filter((s) => s !== '' && s !== '.');
      check(kept.join('/') === path, 'normaliseEntryPath changed a segment', { raw, path });
    }),

    /** Mutated valid archives (compressed layer, tar layer under a valid gzip, zip). */
    mutated: fc.asyncProperty(
      fc.constantFrom('tar.gz', 'tar', 'zip'),
      mutationsArb,
      limitsArb,
      chunkArb,
      async (layer, mutations, limits, chunk) => {
        const archive =
          layer === 'tar' ? gzipSync(mutate(bases.tar, mutations)) : mutate(layer === 'zip' ? bases.zip : bases.tarGz, mutations);
        checkProbe(await probeArchive(read(limits, tmpDir), archive, chunk), limits, tmpDir);
      },
    ),

    /** Random archives full of hostile entries: bad ones are always refused. */
    hostile: fc.asyncProperty(formatArb, hostileEntriesArb, limitsArb, chunkArb, async (format, entries, limits, chunk) => {
      const probe = await probeArchive(read(limits, tmpDir), await buildArchive(format, entries), chunk);
      checkProbe(probe, limits, tmpDir);
      const unsafe = entries.some((e) => {
        if (e.type !== undefined && e.type !== 'file' && e.type !== 'dir') return true;
        try {
          if (e.type === 'dir') entrySegments(e.name);
          else normaliseEntryPath(e.name);
          return false;
        } catch {
          return true;
        }
      });
      if (unsafe) check(probe.error instanceof DomainError, 'an archive with a bad entry was accepted', entries.map((e) => e.name));
      if (probe.error instanceof TooLargeError) {
        const total = entries.reduce((sum, e) => sum + (e.type === undefined || e.type === 'file' ? bytesOf(e.content).length : 0), 0);
        check(entries.length > limits.maxEntries || total > limits.maxBytes, 'TooLargeError within the limits', { limits, total });
      }
    }),

    /** Clean archives within the limits read back exactly; over a limit they are refused with 413. */
    clean: fc.asyncProperty(formatArb, cleanEntriesArb, limitsArb, chunkArb, async (format, entries, limits, chunk) => {
      const probe = await probeArchive(read(limits, tmpDir), await buildArchive(format, entries), chunk);
      checkProbe(probe, limits, tmpDir);
      const expected = entries.map((e) => ({ path: normaliseEntryPath(e.name), size: bytesOf((e as { content?: Buffer }).content).length }));
      const total = expected.reduce((sum, e) => sum + e.size, 0);
      if (entries.length <= limits.maxEntries && total <= limits.maxBytes) {
        check(probe.error === undefined, 'a clean archive was refused', String(probe.error));
        // A zip hands over its small entries as they arrive and its others after the central
        // directory: the same entries, in another order.
        const inOrder = format === 'zip' ? (list: { path: string }[]) => [...list].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)) : (list: { path: string }[]) => list;
        check(JSON.stringify(inOrder(probe.entries)) === JSON.stringify(inOrder(expected)), 'entries differ', { got: probe.entries, expected });
      } else {
        check(probe.error instanceof TooLargeError, 'an archive over the limits was not refused with 413', String(probe.error));
      }
    }),
  };
}
