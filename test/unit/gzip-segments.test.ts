import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressed, gzipOf, stored } from '../../app/queries/gzip-segments.ts';

describe('gzip segments (the listing tree keeps one per chunk of ~64 sites)', () => {
  const json = (n: number) => Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({ path: `team/site-${i}`, title: `site ${i}` }))));

  it('a kept piece holds memory of about its own size, not the 16 KiB zlib output chunk it was written into', () => {
    const piece = compressed(json(64));
    expect(piece.deflated.length).toBeLessThan(4096);
    expect(piece.deflated.buffer.byteLength).toBeLessThan(piece.deflated.length + 1024);
    const punctuation = stored(Buffer.from('],"sites":['));
    expect(punctuation.deflated.buffer.byteLength).toBeLessThan(punctuation.deflated.length + 1024);
  });

  it('pieces still make one valid gzip stream of the bytes in order', () => {
    const a = json(64);
    const b = json(300);
    expect(gunzipSync(gzipOf([compressed(a), stored(Buffer.from(',')), compressed(b)])).equals(Buffer.concat([a, Buffer.from(','), b]))).toBe(true);
  });

  it('combines the CRC-32 of many pieces of every size, empty and over a stored block, into the whole’s', () => {
    const parts = [Buffer.alloc(0), json(1), Buffer.from('x'.repeat(70_000)), json(64), Buffer.alloc(0), Buffer.from('],'), json(500)];
    const whole = Buffer.concat(parts);
    const gz = gzipOf(parts.map((p, i) => (i % 2 === 0 ? stored(p) : compressed(p))));
    expect(gz.readUInt32LE(gz.length - 8)).toBe(crc32(whole));
    expect(gz.readUInt32LE(gz.length - 4)).toBe(whole.length);
    expect(gunzipSync(gz).equals(whole)).toBe(true);
  });
});
