import { Worker } from 'node:worker_threads';

export type SmallBlobWriter = {
  /** Hashes and stores `bytes` as a blob; `created` is false when it was stored already. */
  write(bytes: Uint8Array): Promise<{ hash: string; created: boolean }>;
  close(): Promise<void>;
};

type Reply = { id: number; hash: string; created: boolean; error?: undefined } | { id: number; error: { message: string; code?: string } };
type Pending = { resolve: (r: { hash: string; created: boolean }) => void; reject: (e: unknown) => void };

/**
 * Stores small blobs of the folder store from one worker thread (small-writer.worker.mjs).
 *
 * Why: a publish is mostly small files, and storing one through the async fs API is five
 * round trips over libuv's four-thread pool (stat, open, write, close, rename), which the
 * gunzip of the same upload also needs. Measured on 2,000 files / 40 MB in a tmpfs:
 * 300 ms that way against 85 ms for the same calls made synchronously, in order, on a
 * thread of their own. The worker starts on first use and lets the process exit when idle.
 */
export function openSmallBlobWriter(dir: string, tmpDir: string): SmallBlobWriter {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();

  const failAll = (err: unknown) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  function start(): Worker {
    const w = new Worker(new URL('./small-writer.worker.mjs', import.meta.url), { workerData: { dir, tmpDir } });
    w.on('message', (reply: Reply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0) w.unref();
      if (reply.error) p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else p.resolve({ hash: reply.hash, created: reply.created });
    });
    // A crashed worker fails what it held; the next write starts a fresh one.
    w.on('error', (err) => {
      if (worker === w) worker = undefined;
      failAll(err);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`the blob writer thread exited (code ${code})`));
    });
    w.unref();
    return w;
  }

  return {
    write(bytes) {
      worker ??= start();
      const w = worker;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        if (pending.size === 1) w.ref(); // keeps the process alive while a write is out
        w.postMessage({ id, bytes });
      });
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
