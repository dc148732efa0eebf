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

/** Per slot in the shared header: length, kind (0 plain, 1 stored, 2 deflated), declared size, CRC-32. */
const HEADER_INTS = 4;
const HASH_BYTES = 32;

/** A slot write is answered by a number (slot × 2 + created, its hash in the slot's header) or an error. */
type SlotError = { slot: number; error: { message: string; code?: string } };
type Reply = number[] | SlotError | { id: number; hash: string; created: boolean; error?: undefined } | { id: number; error: { message: string; code?: string } };
type Pending = { resolve: (r: { hash: string; created: boolean }) => void; reject: (e: unknown) => void; thread: Thread };
/** `outbox`: slots filled in this burst of work, sent in one message when it ends. */
type Thread = { worker?: Worker; pending: number; outbox: number[] };

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
 * memory. The message itself is the slot's number, or the numbers of the slots filled in
 * one burst of work (length, kind, declared size and CRC-32 sit in a header beside the
 * slots), and a thread answers all the writes it found waiting
 * in one message carrying their slots (hashes in the headers): objects cloned per file were
 * a good part of the main thread's garbage, and each message wakes it once more. A thread
 * starts on first use and lets the process exit when idle.
 */
export function openSmallBlobWriter(dir: string, tmpDir: string): SmallBlobWriter {
  const threads: Thread[] = Array.from({ length: THREADS }, () => ({ pending: 0, outbox: [] as number[] }));
  let memory: { shared: SharedArrayBuffer; header: Int32Array; hashes: Buffer; locks: SharedArrayBuffer } | undefined;
  let nextId = 0;
  /** Writes out through a slot, by slot; and the rare ones handed over whole, by id. */
  const bySlot: (Pending | undefined)[] = new Array(SLOTS).fill(undefined);
  const byId = new Map<number, Pending>();
  const freeSlots: number[] = [];
  const slotWaiters: ((slot: number) => void)[] = [];

  const done = (p: Pending) => {
    if (--p.thread.pending === 0) p.thread.worker?.unref();
  };
  const settleSlot = (slot: number): Pending | undefined => {
    const p = bySlot[slot];
    if (!p) return undefined;
    bySlot[slot] = undefined;
    const waiter = slotWaiters.shift();
    if (waiter) waiter(slot);
    else freeSlots.push(slot);
    done(p);
    return p;
  };
  const settleId = (id: number): Pending | undefined => {
    const p = byId.get(id);
    if (!p) return undefined;
    byId.delete(id);
    done(p);
    return p;
  };
  const failAll = (thread: Thread, err: unknown) => {
    for (let slot = 0; slot < SLOTS; slot++) if (bySlot[slot]?.thread === thread) settleSlot(slot)!.reject(err);
    for (const [id, p] of [...byId]) if (p.thread === thread) settleId(id)!.reject(err);
  };
  const asError = (error: { message: string; code?: string }) => Object.assign(new Error(error.message), { code: error.code });

  function allocate(): NonNullable<typeof memory> {
    if (!memory) {
      const shared = new SharedArrayBuffer(SLOT_BYTES * SLOTS + SLOTS * (HEADER_INTS * 4 + HASH_BYTES));
      memory = {
        shared,
        header: new Int32Array(shared, SLOT_BYTES * SLOTS, SLOTS * HEADER_INTS),
        hashes: Buffer.from(shared, SLOT_BYTES * SLOTS + SLOTS * HEADER_INTS * 4, SLOTS * HASH_BYTES),
        locks: new SharedArrayBuffer(LOCKS * 4),
      };
      for (let slot = SLOTS - 1; slot >= 0; slot--) freeSlots.push(slot);
    }
    return memory;
  }

  function start(thread: Thread): Worker {
    const { shared, locks } = allocate();
    const w = new Worker(join(projectRoot, 'host', 'blobs', 'small-writer.worker.mjs'), {
      workerData: { dir, tmpDir, shared, slots: SLOTS, slotBytes: SLOT_BYTES, locks },
      // It keeps nothing between messages: a small young generation is collected often and cheaply.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    w.on('message', (reply: Reply) => {
      if (Array.isArray(reply)) {
        const { hashes } = memory!;
        for (const n of reply) {
          const slot = n >> 1;
          const hash = hashes.toString('hex', slot * HASH_BYTES, (slot + 1) * HASH_BYTES); // before the slot is reused
          settleSlot(slot)?.resolve({ hash, created: (n & 1) === 1 });
        }
      } else if ('slot' in reply) settleSlot(reply.slot)?.reject(asError(reply.error));
      else {
        const p = settleId(reply.id);
        if (reply.error) p?.reject(asError(reply.error));
        else p?.resolve({ hash: reply.hash, created: reply.created });
      }
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

  function post(thread: Thread, message: number | { id: number; bytes: Uint8Array; declared?: Declared }, transfer: ArrayBuffer[] = []) {
    const worker = (thread.worker ??= start(thread));
    if (++thread.pending === 1) worker.ref(); // keeps the process alive while a write is out
    if (typeof message !== 'number') return worker.postMessage(message, transfer);
    // A writer's answer resolves several writes at once, and the loop storing a publish fills
    // the freed slots in the same microtask run: their numbers go together once it is over
    // (a next tick queued from a microtask runs when the microtask queue is empty).
    if (thread.outbox.push(message) === 1) process.nextTick(flush, thread);
  }

  function flush(thread: Thread) {
    const slots = thread.outbox;
    thread.outbox = [];
    // No worker: close() ended it, and its exit fails these writes (failAll).
    if (slots.length > 0) thread.worker?.postMessage(slots.length === 1 ? slots[0] : slots);
  }

  /** Fills `slot` (bytes and header) and sends it: the message is the slot's number alone. */
  function sendSlot(slot: number, bytes: Uint8Array, declared: Declared | undefined): Promise<{ hash: string; created: boolean }> {
    const { shared, header } = memory!;
    new Uint8Array(shared, slot * SLOT_BYTES, bytes.byteLength).set(bytes);
    const at = slot * HEADER_INTS;
    header[at] = bytes.byteLength;
    header[at + 1] = declared ? (declared.deflated ? 2 : 1) : 0;
    header[at + 2] = declared?.size ?? 0;
    header[at + 3] = declared?.crc32 ?? 0;
    const thread = pick();
    return new Promise((resolve, reject) => {
      bySlot[slot] = { resolve, reject, thread };
      post(thread, slot);
    });
  }

  return {
    write(bytes, declared) {
      allocate();
      const free = bytes.byteLength <= SLOT_BYTES ? freeSlots.pop() : undefined;
      if (free !== undefined) return sendSlot(free, bytes, declared);
      // A copy of our own, now: the caller may reuse its bytes as soon as this returns.
      const own = new Uint8Array(bytes.byteLength);
      own.set(bytes);
      if (bytes.byteLength > SLOT_BYTES) {
        // Rare (a big manifest): handed over, not cloned — one copy here, none in transit.
        const id = nextId++;
        const thread = pick();
        return new Promise((resolve, reject) => {
          byId.set(id, { resolve, reject, thread });
          post(thread, { id, bytes: own, declared }, [own.buffer]);
        });
      }
      return new Promise<number>((resolve) => slotWaiters.push(resolve)).then((slot) => sendSlot(slot, own, declared));
    },
    async close() {
      const running = threads.flatMap((t) => (t.worker ? [t.worker] : []));
      for (const t of threads) t.worker = undefined;
      await Promise.all(running.map((w) => w.terminate()));
    },
  };
}
