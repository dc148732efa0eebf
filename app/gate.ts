/**
 * A writer-preferring read/write gate between publishes (shared) and garbage
 * collection (exclusive). A publish may reuse a blob that GC is about to delete
 * (the blob exists, so nothing is written); holding the gate from the first blob
 * write until the revision is committed closes that window within one process.
 */
export class PublishGate {
  private readers = 0;
  private writer = false;
  private waitingWriters = 0;
  private queue: (() => void)[] = [];

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.writer || this.waitingWriters > 0) await this.wait();
    this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      this.wake();
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.waitingWriters++;
    try {
      while (this.writer || this.readers > 0) await this.wait();
    } finally {
      this.waitingWriters--;
    }
    this.writer = true;
    try {
      return await fn();
    } finally {
      this.writer = false;
      this.wake();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private wake(): void {
    const waiting = this.queue;
    this.queue = [];
    for (const resolve of waiting) resolve();
  }
}
