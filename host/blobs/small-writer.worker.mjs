// The worker thread behind `openSmallBlobWriter` (small-writer.ts). Plain JavaScript on
// purpose: it starts without the TypeScript loader, so it costs one lean isolate.
//
// Each message is one small blob: hash it and, unless a complete blob of that hash is
// stored already, create the file under its final name and write it — the same three
// calls `tar` makes per file. Synchronous calls are the point: a few microseconds each
// here, where the same calls on the main thread's libuv pool cost a thread hop apiece,
// and blocking this thread blocks nobody.
//
// Why no temp file and rename, which would keep a partial file from ever having a blob's
// name: a publish names a blob in its manifest only after the blob's write returned, so
// no reader asks for it earlier; and a partial file left by a crash or a full disk has
// fewer bytes than its content, which is what "stored already" checks (the size is part
// of the address: same hash, same bytes, same size). Such a leftover is replaced, and
// `sites gc` removes it if nothing needs it. On this project's benchmark disk, temp +
// link + unlink made storing a small file about twice as dear as extracting it.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ dir: string, tmpDir: string, shared: SharedArrayBuffer, slotBytes: number }} */
const { dir, tmpDir, shared, slotBytes } = workerData;
const prefix = `${process.pid}-w${randomBytes(4).toString('hex')}-`;
let counter = 0;

/** @param {Uint8Array} bytes @returns {{ hash: string, created: boolean }} */
function store(bytes) {
  const hash = createHash('sha256').update(bytes).digest('hex');
  // The same layout as folder.ts's blobPath: dir/ab/<hash>.
  const folder = join(dir, hash.slice(0, 2));
  const final = join(folder, hash);
  const existing = statSync(final, { throwIfNoEntry: false });
  if (existing?.size === bytes.byteLength) return { hash, created: false };
  if (existing) removeQuietly(final); // an interrupted write's leftover
  try {
    writeExclusive(final, bytes, folder);
    return { hash, created: true };
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
    // Another process is storing the same content at this moment: put a complete copy in
    // place ourselves (atomically; its write goes on into the file it opened, harmlessly).
    const temp = join(tmpDir, `${prefix}${counter++}.part`);
    try {
      writeFileSync(temp, bytes, { flag: 'wx' });
      renameSync(temp, final);
    } catch (error) {
      removeQuietly(temp);
      throw error;
    }
    return { hash, created: false };
  }
}

/** Creates `path` (failing with EEXIST if it exists) and writes `bytes`; a failed write leaves nothing. */
function writeExclusive(path, bytes, folder) {
  let fd;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
    mkdirSync(folder, { recursive: true }); // a fan-out folder removed by hand
    fd = openSync(path, 'wx');
  }
  try {
    for (let done = 0; done < bytes.byteLength; ) done += writeSync(fd, bytes, done, bytes.byteLength - done);
    closeSync(fd);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    removeQuietly(path);
    throw err;
  }
}

/** @param {string} path */
function removeQuietly(path) {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

// A message names a slot of the shared buffer (small blobs) or carries its own bytes.
parentPort.on('message', (/** @type {{ id: number, slot?: number, length?: number, bytes?: Uint8Array }} */ m) => {
  try {
    const bytes = m.bytes ?? new Uint8Array(shared, (m.slot ?? 0) * slotBytes, m.length);
    parentPort.postMessage({ id: m.id, ...store(bytes) });
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    parentPort.postMessage({ id: m.id, error: { message: e.message, code: e.code } });
  }
});
