import { gunzipSync } from 'node:zlib';
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
});
