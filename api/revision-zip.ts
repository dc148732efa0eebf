import JSZip from 'jszip';
import { Readable } from 'node:stream';
import type { Manifest } from '../domain/manifest.ts';
import type { BlobStore } from '../domain/ports.ts';

/**
 * A revision as a .zip, generated while it is sent. Each file's blob is opened only
 * when jszip reaches it (a lazy stream), so a 5,000-file revision never holds 5,000
 * open files or its bytes in memory.
 */
export function streamRevisionZip(blobs: BlobStore, manifest: Manifest): Readable {
  const zip = new JSZip();
  for (const [path, entry] of manifest.files) {
    zip.file(path, lazyBlob(blobs, entry.hash), { binary: true, date: new Date(0) });
  }
  return zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'DEFLATE', compressionOptions: { level: 6 } }) as unknown as Readable;
}

function lazyBlob(blobs: BlobStore, hash: string): Readable {
  let source: Readable | undefined;
  const out = new Readable({
    read() {
      if (source) {
        source.resume();
        return;
      }
      blobs.get(hash).then(
        (stream) => {
          if (!stream) return out.destroy(new Error(`blob ${hash} is missing`));
          source = stream;
          stream.on('data', (chunk) => {
            if (!out.push(chunk)) stream.pause();
          });
          stream.on('end', () => out.push(null));
          stream.on('error', (err) => out.destroy(err));
        },
        (err) => out.destroy(err),
      );
    },
  });
  return out;
}
