/**
 * A quick pass of the archive fuzz properties so `npm test` covers them; the long run
 * is test/faults/fuzz-archive.test.ts (`npm run test:faults`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { archiveProperties } from '../support/archive-properties.ts';
import { makeTar, makeTarGz, makeZip, type TestEntry } from '../support/archives.ts';

const BASE: TestEntry[] = [
  { type: 'dir', name: 'site' },
  { name: 'site/index.html', content: '<!doctype html><h1>hello</h1>' },
  { name: 'site/css/a.css', content: 'body { color: red }'.repeat(20) },
  { name: 'site/img.bin', content: Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 13) & 0xff)) },
];

let tmp: string;
let properties: ReturnType<typeof archiveProperties>;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'archive-fuzz-'));
  properties = archiveProperties(tmp, { tarGz: await makeTarGz(BASE), tar: await makeTar(BASE), zip: await makeZip(BASE) });
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('archive reader fuzz (quick)', () => {
  it('normaliseEntryPath never returns an unsafe path', () => fc.assert(properties.paths, { numRuns: 2000 }));
  it('mutated archives: only typed errors, safe paths, limits held', () => fc.assert(properties.mutated, { numRuns: 150 }));
  it('hostile archives: bad entries always refused', () => fc.assert(properties.hostile, { numRuns: 100 }));
  it('clean archives read back exactly, or 413 over the limits', () => fc.assert(properties.clean, { numRuns: 60 }));
});
