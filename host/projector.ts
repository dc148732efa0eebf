import type { EventStore } from '../domain/ports.ts';
import type { ReadModel } from '../projections/read-model.ts';

const BATCH = 500;
const LEASE = 'projector';

export type ProjectorOptions = {
  /** Identifies this process in the lease (several instances may share one read model). */
  readonly holder: string;
  readonly leaseTtlMs?: number;
  readonly onError?: (err: unknown) => void;
};

/**
 * Runs the projections: reads events after the checkpoint and applies them to the read
 * model in batches (checkpoint committed with each batch). Exactly one process projects at
 * a time, elected through a lease in the read model; the others only wait for the read
 * model to reach their own appends, and take over when the holder's lease expires.
 */
export class Projector {
  private running = false;
  private loop: Promise<void> | undefined;
  private holding = false;
  private readonly waiters = new Set<() => void>();
  private readonly ttl: number;

  constructor(
    private readonly events: EventStore,
    private readonly readModel: ReadModel,
    private readonly options: ProjectorOptions,
  ) {
    this.ttl = options.leaseTtlMs ?? 5_000;
  }

  /** Whether this process currently holds the projector lease. */
  get isLeader(): boolean {
    return this.holding;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    if (this.holding) await this.readModel.releaseLease(LEASE, this.options.holder).catch(() => undefined);
    this.holding = false;
  }

  /** Applies everything currently in the log (used by the CLI and `replay`, which run without a loop). */
  async catchUp(): Promise<number> {
    let applied = 0;
    for (;;) {
      const after = await this.readModel.checkpoint();
      const batch = await this.events.readAll(after, BATCH);
      if (batch.length === 0) return applied;
      await this.readModel.apply(batch, batch[batch.length - 1]!.position);
      applied += batch.length;
      this.notify();
    }
  }

  /** Resolves once the read model has applied `stream` up to `revision` (read-your-writes). */
  async waitFor(stream: string, revision: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.readModel.streamRevision(stream)) >= revision) return;
      if (Date.now() > deadline) throw new Error(`the read model did not reach ${stream}@${revision} within ${timeoutMs} ms`);
      // Woken by our own projector at once; otherwise poll, since another instance may project.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, 25);
        this.waiters.add(done);
      });
    }
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  private async run(): Promise<void> {
    let lastRenew = 0;
    while (this.running) {
      try {
        if (!this.holding || Date.now() - lastRenew > this.ttl / 3) {
          this.holding = await this.readModel.tryLease(LEASE, this.options.holder, this.ttl);
          lastRenew = Date.now();
        }
        if (!this.holding) {
          await sleep(Math.min(1000, this.ttl / 3));
          continue;
        }
        const after = await this.readModel.checkpoint();
        const batch = await this.events.readAll(after, BATCH);
        if (batch.length > 0) {
          await this.readModel.apply(batch, batch[batch.length - 1]!.position);
          this.notify();
          continue;
        }
        await this.events.waitForEvents(after, Math.min(1000, this.ttl / 3));
      } catch (err) {
        this.options.onError?.(err);
        await sleep(200);
      }
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
