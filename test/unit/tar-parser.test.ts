import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { TarParser } from '../../host/archive/tar-parser.ts';
import { makeTar, type TestEntry } from '../support/archives.ts';

// host/archive/tar-parser.ts frames tar-stream's header reading without its extract's
// stream per entry; it must read what tar-stream's extract reads, header for header and
// byte for byte, and refuse what it refuses.

type Read = { entries: { name: string; type: string | null; size: number; data: string }[]; error: boolean };

async function withTarStream(archive: Buffer, chunk: number): Promise<Read> {
  const entries: Read['entries'] = [];
  // streamx's typings lag its API: used as a plain writable here.
  const extract = tar.extract() as unknown as NodeJS.WritableStream & AsyncIterable<AsyncIterable<Buffer> & { header: tar.Header }>;
  const done = (async () => {
    for await (const entry of extract) {
      const parts: Buffer[] = [];
      for await (const part of entry) parts.push(part);
      const { name, type, size } = entry.header;
      entries.push({ name, type: type ?? null, size: size ?? 0, data: Buffer.concat(parts).toString('latin1') });
    }
  })();
  try {
    for (let i = 0; i < archive.length; i += chunk) {
      if (!extract.write(archive.subarray(i, i + chunk))) await new Promise<void>((resolve) => extract.once('drain', () => resolve()));
    }
    extract.end();
    await done;
    return { entries, error: false };
  } catch {
    return { entries, error: true };
  }
}

function withParser(archive: Buffer, chunk: number): Read {
  const entries: Read['entries'] = [];
  const parser = new TarParser();
  let current: Read['entries'][number] | undefined;
  try {
    for (let i = 0; i < archive.length; i += chunk) {
      parser.feed(archive.subarray(i, i + chunk));
      for (let event = parser.next(); event; event = parser.next()) {
        if (event.header) {
          current = { ...event.header, size: event.header.size || 0, data: '' };
          entries.push(current);
        } else current!.data += event.data.toString('latin1');
      }
    }
    parser.end();
    return { entries, error: false };
  } catch {
    return { entries, error: true };
  }
}

const names = fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}$/);
const entriesArb = fc.array(
  fc.record({ name: names, content: fc.uint8Array({ maxLength: 1500 }).map((b) => Buffer.from(b)) }),
  { maxLength: 5 },
);

describe('TarParser reads tar as tar-stream does', () => {
  it('on clean and damaged archives, in any chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        entriesArb,
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.option(fc.nat()),
        fc.integer({ min: 1, max: 2000 }),
        async (entries, pax, flips, cut, chunk) => {
          const clean = await makeTar(entries as TestEntry[], { pax, globalPax: pax && entries.length % 2 === 0 });
          const archive = Buffer.from(clean);
          for (const [at, value] of flips) archive[at % archive.length] = value;
          const input = cut === null ? archive : archive.subarray(0, cut % (archive.length + 1));
          const expected = await withTarStream(input, chunk);
          const got = withParser(input, chunk);
          expect(got.error).toBe(expected.error);
          if (!expected.error) expect(got.entries).toEqual(expected.entries);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on what GNU tar writes (long names, folders, the record padding)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tar-parser-'));
    try {
      const long = `${'d'.repeat(120)}/${'f'.repeat(120)}.html`;
      mkdirSync(join(dir, 'site', 'd'.repeat(120)), { recursive: true });
      writeFileSync(join(dir, 'site', long), 'long');
      writeFileSync(join(dir, 'site', 'index.html'), 'x'.repeat(700));
      for (const format of ['gnu', 'posix', 'ustar', 'oldgnu']) {
        const file = join(dir, `${format}.tar`);
        try {
          execFileSync('tar', [`--format=${format}`, '-cf', file, '-C', dir, 'site'], { stdio: 'ignore' });
        } catch {
          continue; // ustar cannot hold the long name: nothing to compare
        }
        const archive = readFileSync(file);
        for (const chunk of [1, 511, 512, 4096, archive.length]) {
          const expected = await withTarStream(archive, chunk);
          expect(withParser(archive, chunk)).toEqual(expected);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
