import JSZip from 'jszip';
import { PassThrough, pipeline, Readable } from 'node:stream';
import type { Manifest } from '../domain/manifest.ts';

/**
 * A revision as a .zip, generated while it is sent. Each file's blob is opened only
 * when jszip reaches it (a lazy stream), so a 5,000-file revision never holds 5,000
 * open files or its bytes in memory. `date` is the revision's publish time.
 */
export function streamRevisionZip(open: (hash: string) => Promise<Readable | undefined>, manifest: Manifest, date: Date): Readable {
  const zip = new JSZip();
  const inputs: Readable[] = [];
  for (const [path, entry] of manifest.files) {
    const input = lazyBlob(open, entry.hash);
    inputs.push(input);
    // Every file dated by its revision: the one time we know for all of them (zip dates start in 1980, so no epoch).
    zip.file(path, input, { binary: true, date });
  }
  const generated = zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'DEFLATE', compressionOptions: { level: 6 } }) as unknown as Readable;
  // jszip leaves its input streams as they are when its output is abandoned (a client gone
  // mid-download), and its output (readable-stream 2) says nothing when destroyed: the
  // input it was reading would keep its blob's file open. Through a core stream, whose
  // pipeline reports the end either way, they are all closed with it (after a complete
  // download they have ended already).
  const out = new PassThrough();
  pipeline(generated, out, () => {
    for (const input of inputs) input.destroy();
  });
  return out;
}

function lazyBlob(open: (hash: string) => Promise<Readable | undefined>, hash: string): Readable {
  let source: Readable | undefined;
  const out = new Readable({
    read() {
      if (source) {
        source.resume();
        return;
      }
      open(hash).then(
        (stream) => {
          if (!stream) return out.destroy(new Error(`blob ${hash} is missing`));
          // A download abandoned meanwhile: the blob's open file must be closed, not left for good.
          if (out.destroyed) return void stream.destroy();
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
    destroy(err, callback) {
      source?.destroy();
      callback(err);
    },
  });
  return out;
}
