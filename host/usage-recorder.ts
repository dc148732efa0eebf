/**
 * Coalesces "last used" writes: `last_used_at` of a key or an MCP connection is written as
 * one event per id per window, never one per request (a CI job making 10,000 requests
 * writes one event). Per instance: with several instances each may write once per window.
 */
export class UsageRecorder<Id> {
  private readonly lastWritten = new Map<Id, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly write: (id: Id, at: Date) => Promise<void>,
    private readonly now: () => Date,
    private readonly windowMs = 60_000,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  used(id: Id): void {
    const now = this.now();
    const last = this.lastWritten.get(id);
    if (last !== undefined && now.getTime() - last < this.windowMs) return;
    this.lastWritten.set(id, now.getTime());
    // Forget ids whose window is over, so the map stays as small as the set of recent users.
    if (this.lastWritten.size > 10_000) {
      for (const [k, t] of this.lastWritten) if (now.getTime() - t >= this.windowMs) this.lastWritten.delete(k);
    }
    const p = this.write(id, now)
      .catch(this.onError)
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
