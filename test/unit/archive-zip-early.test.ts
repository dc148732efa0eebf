import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import JSZip from 'jszip';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../domain/errors.ts';
import { readArchive } from '../support/archive-entries.ts';
import { chunked } from '../support/archives.ts';

// A zip's small entries are handed over while the upload still arrives, found by their
// local headers (host/archive/zip-local.ts); the central directory, read at the end, must
// then list each of them exactly as its local header said. These archives disagree.

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'archive-zip-early-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));
afterEach(async () => expect(await readdir(tmp)).toEqual([]));

const LIMITS = { maxEntries: 100, maxBytes: 10_000_000 };

type Entry = { name: string; data: Buffer; method?: 0 | 8 };
type Central = { name?: string; crc?: number; size?: number; mode?: number; offset?: number };

/** Local records for `entries`, then a central directory of `central` (by default one faithful record each). */
function zip(entries: Entry[], central?: (records: Required<Central>[]) => Central[]): Buffer {
  const parts: Buffer[] = [];
  const records: Required<Central & { method: number; compressed: number }>[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const method = e.method ?? 8;
    const data = method === 8 ? deflateRawSync(e.data) : e.data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc32(e.data), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, data);
    records.push({ name: e.name, crc: crc32(e.data), size: e.data.length, mode: 0o100644, offset, method, compressed: data.length });
    offset += 30 + name.length + data.length;
  }
  const listed = central ? central(records).map((c, i) => ({ ...records[i]!, ...c })) : records;
  const directory = listed.map((r) => {
    const name = Buffer.from(r.name);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | 20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(r.method, 10);
    header.writeUInt32LE(r.crc, 16);
    header.writeUInt32LE(r.compressed, 20);
    header.writeUInt32LE(r.size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE((r.mode << 16) >>> 0, 38);
    header.writeUInt32LE(r.offset, 42);
    return Buffer.concat([header, name]);
  });
  const cd = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(listed.length, 8);
  end.writeUInt16LE(listed.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

async function read(archive: Buffer, chunk = 64 * 1024): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of readArchive(chunked(archive, chunk), LIMITS, tmp)) {
    const chunks: Buffer[] = [];
    for await (const c of entry.content) chunks.push(c);
    out.set(entry.path, Buffer.concat(chunks).toString());
  }
  return out;
}

async function refusal(archive: Buffer): Promise<Error> {
  return refusal2(archive, LIMITS);
}

async function refusal2(archive: Buffer, limits: typeof LIMITS): Promise<Error> {
  try {
    for await (const entry of readArchive(chunked(archive, 64 * 1024), limits, tmp)) for await (const _ of entry.content);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

const a = { name: 'index.html', data: Buffer.from('<h1>a</h1>'.repeat(50)) };
const b = { name: 'b.css', data: Buffer.from('b{}'.repeat(100)), method: 0 as const };

describe('zip entries handed over before the central directory is read', () => {
  it('reads a faithful archive in any chunking, one byte at a time included', async () => {
    for (const size of [1, 7, 31, 100, 64 * 1024]) {
      expect(await read(zip([a, b]), size)).toEqual(new Map([[a.name, a.data.toString()], [b.name, b.data.toString()]]));
    }
  });

  it('refuses an entry the central directory does not list', async () => {
    const error = await refusal(zip([a, b], (records) => records.slice(0, 1)));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/central directory does not list entry "?b\.css/);
  });

  it.each([
    ['another name', { name: 'other.css' }],
    ['another CRC-32', { crc: 12345 }],
    ['another size', { size: 301 }],
  ])('refuses an entry the central directory gives %s', async (_, change) => {
    const error = await refusal(zip([a, b], (records) => [records[0]!, { ...records[1]!, ...change }]));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/corrupt/); // "differs", or yauzl's own objection to the record
  });

  it('refuses an entry the central directory calls a symbolic link or a folder', async () => {
    const link = await refusal(zip([a, b], (records) => [records[0]!, { ...records[1]!, mode: 0o120777 }]));
    expect(link.message).toMatch(/symbolic link/);
    const folder = await refusal(zip([a, b], (records) => [records[0]!, { ...records[1]!, mode: 0o040755 }]));
    expect(folder.message).toMatch(/differs/);
  });

  it('leaves an entry that would pass the byte limit to the directory, which knows a link from a file', async () => {
    const error = await refusal2(zip([a, b], (records) => [records[0]!, { ...records[1]!, mode: 0o120777 }]), { maxEntries: 10, maxBytes: a.data.length + 10 });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/symbolic link/);
  });

  it('reads entries a second record points at again under their own names', async () => {
    const read2 = await read(zip([a, b], (records) => [records[0]!, records[1]!, { ...records[1]!, name: 'copy.css' }]));
    expect([...read2.keys()].sort()).toEqual(['b.css', 'copy.css', 'index.html']);
    expect(read2.get('copy.css')).toBe(b.data.toString());
  });

  it('reads archives whose sizes follow their data (data descriptors) from the central directory', async () => {
    const jszip = new JSZip();
    jszip.file('index.html', a.data);
    jszip.file('big.bin', Buffer.alloc(300_000, 1));
    jszip.file('b.css', b.data);
    const archive = await jszip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', streamFiles: true });
    const entries = await read(archive, 1000);
    expect([...entries.keys()].sort()).toEqual(['b.css', 'big.bin', 'index.html']);
    expect(entries.get('b.css')).toBe(b.data.toString());
  });
});
