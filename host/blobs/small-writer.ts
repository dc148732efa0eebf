import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../root.ts';

/** What an archive declares of an entry's bytes: deflated or stored, their size and CRC-32 once inflated. */
export type Declared = { readonly deflated: boolean; readonly size: number; readonly crc32: number };

export type SmallBlobWriter = {
  /**
   * Hashes and stores `bytes` as a blob; `created` is false when it was stored already.
   * With `declared`, `bytes` is an archive entry as stored (raw deflate data or the content
   * itself), inflated and checked on the writer thread: exactly `size` bytes with that
   * CRC-32, or it fails with code ERR_CONTENT_MISMATCH and stores nothing. The bytes are copied before this returns, so the caller may reuse them at once.
   */
  write(bytes: Uint8Array, declared?: Declared): Promise<{ hash: string; created: boolean }>;
  close(): Promise<void>;
};

/** A blob up to this size travels through a slot of shared memory; larger ones are handed over whole. */
export const SLOT_BYTES = 256 * 1024;
/** Writes in flight at once through slots (more wait for a free slot). */
const SLOTS = 16;
/**
 * Writer threads. Creating a file is kernel work that runs in parallel on two threads (an
 * ext4 inode allocation scans the group's bitmap and, after many deletions, skips every
 * recently deleted inode one buffer lookup at a time: the dearest step of a publish on the
 * benchmark disk). Each thread is a lean isolate of about 8 MB; more than two did not pay
 * on two cores.
 */
const THREADS = 2;
/** Buckets of the shared per-hash lock (a collision only makes two writes wait in turn). */
const LOCKS = 1024;

type Reply = { id: number; hash: string; created: boolean; error?: undefined } | { id: number; error: { message: string; code?: string } };
type Pending = { resolve: (r: { hash: string; created: boolean }) => void; reject: (e: unknown) => void; slot?: number; thread: Thread };
type Thread = { worker?: Worker; pending: number };

/**
 * Stores small blobs of the folder store from two worker threads (small-writer.worker.mjs).
 *
 * Why threads: a publish is mostly small files, and storing one through the async fs API
 * is five round trips over libuv's four-thread pool (stat, open, write, close, link),
 * which the gunzip of the same upload also needs. Measured on 2,000 files / 40 MB in a
 * tmpfs: 300 ms that way against 85 ms for the same calls made synchronously, in order,
 * on a thread of their own. Each write goes to the thread with fewer writes out; the
 * threads serialise writes of one hash through a shared lock table, so two copies of a
 * file in one archive are stored once and reported created once.
 *
 * Why slots: the bytes go to a thread through 16 fixed slots of one SharedArrayBuffer
 * (4 MiB), not as a new buffer per file. Short-lived buffers are only freed when the
 * garbage collector notices them, and a publish of 40 MB made that tens of MB of resident
 * memory. A thread starts on first use and lets the process exit when idle.
 */
export function openSmallBlobWriter(dir: string, tmpDir: string): SmallBlobWriter {
  const threads: Thread[] = Array.from({ length: THREADS }, () => ({ pending: 0 }));
  let shared: SharedArrayBuffer | undefined;
  let locks: SharedArrayBuffer | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const freeSlots: number[] = [];
  const slotWaiters: ((slot: number) => void)[] = [];

  const releaseSlot = (slot: number | undefined) => {
    if (slot === undefined) return;
    const waiter = slotWaiters.shift();
    if (waiter) waiter(slot);
    else freeSlots.push(slot);
  };

  const settle = (id: number): Pending | undefined => {
    const p = pending.get(id);
    if (!p) return undefined;
    pending.delete(id);
    releaseSlot(p.slot);
    if (--p.thread.pending === 0) p.thread.worker?.unref();
    return p;
  };
  const failAll = (thread: Thread, err: unknown) => {
    for (const [id, p] of [...pending]) if (p.thread === thread) settle(id)!.reject(err);
  };

  function allocate(): SharedArrayBuffer {
    if (!shared) {
      shared = new SharedArrayBuffer(SLOT_BYTES * SLOTS);
      locks = new SharedArrayBuffer(LOCKS * 4);
      for (let slot = SLOTS - 1; slot >= 0; slot--) freeSlots.push(slot);
    }
    return shared;
  }

  function start(thread: Thread): Worker {
    allocate();
    const w = new Worker(join(projectRoot, 'host', 'blobs', 'small-writer.worker.mjs'), {
      workerData: { dir, tmpDir, shared, slotBytes: SLOT_BYTES, locks },
      // It keeps nothing between messages: a small young generation is collected often and cheaply.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    w.on('message', (reply: Reply) => {
      const p = settle(reply.id);
      if (!p) return;
      if (reply.error) p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else p.resolve({ hash: reply.hash, created: reply.created });
    });
    // A crashed worker fails what it held; the next write to its place starts a fresh one.
    w.on('error', (err) => {
      if (thread.worker === w) thread.worker = undefined;
      failAll(thread, err);
    });
    w.on('exit', (code) => {
      if (thread.worker === w) thread.worker = undefined;
      failAll(thread, new Error(`the blob writer thread exited (code ${code})`));
    });
    w.unref();
    return w;
  }

  /** The thread with the fewest writes out (the first on a tie, so a lone write starts one thread only). */
  const pick = (): Thread => threads.reduce((best, t) => (t.pending < best.pending ? t : best));

  function send(message: { id: number; slot?: number; length?: number; bytes?: Uint8Array; declared?: Declared }, p: Pending, transfer: ArrayBuffer[] = []) {
    const { thread } = p;
    const worker = (thread.worker ??= start(thread));
    pending.set(message.id, p);
    if (++thread.pending === 1) worker.ref(); // keeps the process alive while a write is out
    worker.postMessage(message, transfer);
  }

  return {
    write(bytes, declared) {
      const id = nextId++;
      const memory = allocate();
      const free = bytes.byteLength <= SLOT_BYTES ? freeSlots.pop() : undefined;
      if (free !== undefined) {
        new Uint8Array(memory, free * SLOT_BYTES, bytes.byteLength).set(bytes);
        return new Promise((resolve, reject) => send({ id, slot: free, length: bytes.byteLength, declared }, { resolve, reject, slot: free, thread: pick() }));
      }
      // A copy of our own, now: the caller may reuse its bytes as soon as this returns.
      const own = new Uint8Array(bytes.byteLength);
      own.set(bytes);
      if (bytes.byteLength > SLOT_BYTES) {
        // Rare (a big manifest): handed over, not cloned — one copy here, none in transit.
        return new Promise((resolve, reject) => send({ id, bytes: own, declared }, { resolve, reject, thread: pick() }, [own.buffer]));
      }
      return new Promise<number>((resolve) => slotWaiters.push(resolve)).then((slot) => {
        new Uint8Array(memory, slot * SLOT_BYTES, own.byteLength).set(own);
        return new Promise((resolve, reject) => send({ id, slot, length: own.byteLength, declared }, { resolve, reject, slot, thread: pick() }));
      });
    },
    async close() {
      const running = threads.flatMap((t) => (t.worker ? [t.worker] : []));
      for (const t of threads) t.worker = undefined;
      await Promise.all(running.map((w) => w.terminate()));
    },
  };
}
