import { recordKeyUse } from '../domain/commands/keys.ts';
import type { CommandDeps } from '../domain/commands/deps.ts';

/**
 * Coalesces key usage: `last_used_at` is written as one `KeyUsed` event per key per
 * window, never one per request (a CI job making 10,000 requests writes one event).
 */
export class KeyUsageRecorder {
  private readonly lastWritten = new Map<number, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: CommandDeps,
    private readonly windowMs = 60_000,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  used(keyId: number): void {
    const now = this.deps.now();
    const last = this.lastWritten.get(keyId);
    if (last !== undefined && now.getTime() - last < this.windowMs) return;
    this.lastWritten.set(keyId, now.getTime());
    const p = recordKeyUse(this.deps, keyId, now)
      .catch(this.onError)
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
