// The worker thread behind `openSmallBlobWriter` (small-writer.ts). Plain JavaScript on
// purpose: it starts without the TypeScript loader, so it costs one lean isolate.
//
// Each message is one small blob: hash it, and unless a blob of that hash is stored
// already, write it to a temp file and link it into place. Synchronous calls are the
// point: a few microseconds each here, where the same calls on the main thread's libuv
// pool cost a thread hop apiece — and blocking this thread blocks nobody.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
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
  if (existsSync(final)) return { hash, created: false };
  const temp = join(tmpDir, `${prefix}${counter++}.part`);
  try {
    writeFileSync(temp, bytes, { flag: 'wx' });
    // Atomic: readers see no blob or the whole blob. link() fails with EEXIST when a
    // concurrent upload stored the same content first, so exactly one reports `created`.
    return { hash, created: linkOnce(temp, final, folder) };
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
  }
}

/** @param {string} temp @param {string} final @param {string} folder @returns {boolean} */
function linkOnce(temp, final, folder) {
  try {
    linkSync(temp, final);
    return true;
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      // A filesystem without hard links: an atomic rename is still safe (same bytes).
      if (existsSync(final)) return false;
      renameSync(temp, final);
      return true;
    }
    if (code !== 'ENOENT') throw err;
    // A fan-out folder removed by hand: make it again, once.
    mkdirSync(folder, { recursive: true });
    linkSync(temp, final);
    return true;
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
