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
import { hash as digestOf, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { crc32, inflateRawSync } from 'node:zlib';

/** @type {{ dir: string, tmpDir: string, shared: SharedArrayBuffer, slots: number, slotBytes: number, locks: SharedArrayBuffer }} */
const { dir, tmpDir, shared, slots, slotBytes, locks: lockMemory } = workerData;
// The layout of small-writer.ts: the slots, then 4 header ints per slot, then 32 hash bytes per slot.
const header = new Int32Array(shared, slots * slotBytes, slots * 4);
const hashes = new Uint8Array(shared, slots * slotBytes + slots * 16, slots * 32);
const locks = new Int32Array(lockMemory);
/** Longer than any one small write; past it the holder is taken to have died holding the lock. */
const LOCK_WAIT_MS = 2000;
const prefix = `${process.pid}-w${randomBytes(4).toString('hex')}-`;
let counter = 0;

/** @param {Uint8Array} bytes @param {number} [slot] where to put the hash, binary, instead of hex @returns {{ hash: string, created: boolean }} */
function store(bytes, slot) {
  // One call, no Hash object per blob to create and collect.
  const digest = digestOf('sha256', bytes, 'buffer');
  const hash = digest.toString('hex');
  if (slot !== undefined) hashes.set(digest, slot * 32);
  // The writer threads of this process store one hash at a time: the second copy of a file
  // then finds the first complete and reports it stored already, instead of taking the
  // first's half-written file for a crash leftover.
  const bucket = digest.readUInt32BE(0) % locks.length;
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
  // Created first, looked at only when it is there already: most blobs of a publish are
  // new, and for those the create is the one path lookup made.
  if (writeExclusive(final, bytes, folder)) return true;
  const existing = statSync(final, { throwIfNoEntry: false });
  if (existing?.size === bytes.byteLength) return false;
  // An interrupted write's leftover (or another process writing it right now, or a blob
  // removed since the create failed): a complete copy replaces it atomically, so the name
  // never points at nothing.
  replace(final, bytes);
  return true;
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

/**
 * Creates `path` and writes `bytes`: true once written, false when `path` exists already
 * (nothing written). A failed write leaves nothing.
 */
function writeExclusive(path, bytes, folder) {
  let fd;
  try {
    fd = openExclusive(path, folder);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EEXIST') return false;
    throw err;
  }
  try {
    for (let done = 0; done < bytes.byteLength; ) done += writeSync(fd, bytes, done, bytes.byteLength - done);
    closeSync(fd);
    return true;
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

function openExclusive(/** @type {string} */ path, /** @type {string} */ folder) {
  try {
    return openSync(path, 'wx');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
    mkdirSync(folder, { recursive: true }); // a fan-out folder removed by hand
    return openSync(path, 'wx');
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

/**
 * A zip entry as stored in the archive, inflated (when deflated) and checked here rather
 * than on the main thread: exactly the declared size and CRC-32, or nothing is stored.
 * @param {Uint8Array} raw @param {{ deflated: boolean, size: number, crc32: number }} declared
 */
function unpack(raw, declared) {
  const bytes = declared.deflated ? inflate(raw, declared.size) : raw;
  if (bytes.byteLength !== declared.size) throw mismatch(`has ${bytes.byteLength} bytes, not the declared ${declared.size}`);
  if (crc32(bytes) !== declared.crc32) throw mismatch('fails its CRC-32 check');
  return bytes;
}

/**
 * Inflated buffers die as soon as they are written, but V8 frees a dead buffer only when it
 * collects its young generation, which so little JavaScript here fills slowly: up to 32 MiB
 * of them would pile up per thread. With --expose-gc (how the service runs; see
 * host/gc-hint.ts) a young collection every 2 MiB inflated (about a millisecond each) keeps
 * that to 2 MiB.
 */
const gc = /** @type {{ gc?: (options: { type: 'minor' }) => void }} */ (globalThis).gc;
const GC_EVERY = 2 * 1024 * 1024;
let inflatedSinceGc = 0;

/** @param {Uint8Array} raw @param {number} size */
function inflate(raw, size) {
  inflatedSinceGc += size;
  if (inflatedSinceGc >= GC_EVERY && typeof gc === 'function') {
    inflatedSinceGc = 0;
    gc({ type: 'minor' }); // before this entry's buffer exists: frees the previous ones
  }
  try {
    // One output buffer one byte larger than declared: a conforming entry inflates in one
    // call into it, and a longer one overshoots the bound (so a bomb stops there).
    return inflateRawSync(raw, { maxOutputLength: Math.max(1, size), chunkSize: Math.max(64, size + 1) });
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    throw mismatch(e.code === 'ERR_BUFFER_TOO_LARGE' ? `inflates to more than its declared ${size} bytes` : `does not inflate (${e.message})`);
  }
}

/** @param {string} message */
const mismatch = (message) => Object.assign(new Error(message), { code: 'ERR_CONTENT_MISMATCH' });

/**
 * A message is a slot's number (its bytes and header in the shared buffer), several of them, or, for the rare
 * blob larger than a slot, its own bytes. Every message waiting is taken at once and the
 * slots answered together (slot × 2 + created, the hash in the slot's header): one message
 * and one wake-up of the main thread for several files.
 */
parentPort.on('message', (/** @type {number | number[] | { id: number, bytes: Uint8Array, declared?: { deflated: boolean, size: number, crc32: number } }} */ first) => {
  /** @type {number[]} */
  const answered = [];
  /** @param {number} slot */
  const answer = (slot) => {
    try {
      answered.push(slot * 2 + (storeSlot(slot) ? 1 : 0));
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException} */ (err);
      parentPort.postMessage({ slot, error: { message: e.message, code: e.code } });
    }
  };
  for (let m = first; m !== undefined; m = receiveMessageOnPort(parentPort)?.message) {
    if (typeof m === 'number') {
      answer(m);
      continue;
    }
    if (Array.isArray(m)) {
      for (const slot of m) answer(slot);
      continue;
    }
    try {
      parentPort.postMessage({ id: m.id, ...store(m.declared ? unpack(m.bytes, m.declared) : m.bytes) });
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException} */ (err);
      parentPort.postMessage({ id: m.id, error: { message: e.message, code: e.code } });
    }
  }
  if (answered.length > 0) parentPort.postMessage(answered);
});

/** @param {number} slot @returns {boolean} created */
function storeSlot(slot) {
  const at = slot * 4;
  const bytes = new Uint8Array(shared, slot * slotBytes, header[at]);
  const kind = header[at + 1];
  const declared = kind === 0 ? undefined : { deflated: kind === 2, size: header[at + 2], crc32: header[at + 3] >>> 0 };
  return store(declared ? unpack(bytes, declared) : bytes, slot).created;
}
