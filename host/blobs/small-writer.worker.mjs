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

/** @type {{ dir: string, tmpDir: string, shared: SharedArrayBuffer, slotBytes: number, locks: SharedArrayBuffer }} */
const { dir, tmpDir, shared, slotBytes, locks: lockMemory } = workerData;
const locks = new Int32Array(lockMemory);
/** Longer than any one small write; past it the holder is taken to have died holding the lock. */
const LOCK_WAIT_MS = 2000;
const prefix = `${process.pid}-w${randomBytes(4).toString('hex')}-`;
let counter = 0;

/** @param {Uint8Array} bytes @returns {{ hash: string, created: boolean }} */
function store(bytes) {
  const hash = createHash('sha256').update(bytes).digest('hex');
  // The writer threads of this process store one hash at a time: the second copy of a file
  // then finds the first complete and reports it stored already, instead of taking the
  // first's half-written file for a crash leftover.
  const bucket = Number.parseInt(hash.slice(0, 8), 16) % locks.length;
  lock(bucket);
  try {
    return { hash, created: place(hash, bytes) };
  } finally {
    Atomics.store(locks, bucket, 0);
    Atomics.notify(locks, bucket, 1);
  }
}

/** @param {number} bucket */
function lock(bucket) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (Atomics.compareExchange(locks, bucket, 0, 1) !== 0) {
    const left = deadline - Date.now();
    if (left <= 0) return; // a thread terminated mid-write never unlocks: go on, as its owner
    Atomics.wait(locks, bucket, 1, left);
  }
}

/** Stores `bytes` under its hash unless a complete copy is there; true when this call created it. */
function place(/** @type {string} */ hash, /** @type {Uint8Array} */ bytes) {
  // The same layout as folder.ts's blobPath: dir/ab/<hash>.
  const folder = join(dir, hash.slice(0, 2));
  const final = join(folder, hash);
  const existing = statSync(final, { throwIfNoEntry: false });
  if (existing?.size === bytes.byteLength) return false;
  if (existing) {
    // An interrupted write's leftover (or another process writing it right now): a complete
    // copy replaces it atomically, so the name never points at nothing.
    replace(final, bytes);
    return true;
  }
  try {
    writeExclusive(final, bytes, folder);
    return true;
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
    // Another process is storing the same content at this moment: put a complete copy in
    // place ourselves (its write goes on into the file it opened, harmlessly).
    replace(final, bytes);
    return false;
  }
}

/** Writes a temp copy and renames it over `final`. */
function replace(/** @type {string} */ final, /** @type {Uint8Array} */ bytes) {
  const temp = join(tmpDir, `${prefix}${counter++}.part`);
  try {
    writeFileSync(temp, bytes, { flag: 'wx' });
    renameSync(temp, final);
  } catch (error) {
    removeQuietly(temp);
    throw error;
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
