type Entry = { readonly checkpoint: string | undefined; readonly body: Buffer };

/**
 * Serialized answers of a query (the site listing: 3 MB of JSON and ~50 ms of work for
 * 10,000 sites, asked again and again by portals), each tagged with the read model
 * checkpoint it was computed at, and served only while the checkpoint is still there.
 *
 * Why the checkpoint makes this exact: every projected change moves it, and the checkpoint
 * lives in the shared read model, so it is read per request after the request arrived; a
 * write that returned before (its events projected, on this instance or any other) has
 * moved it, and the next answer is computed afresh. A body is stored only if the
 * checkpoint did not move while it was computed, so it never stands for a later
 * position than the one it saw. A read model that writes the documents first and moves
 * the checkpoint after (MongoDB) counts a write as applied (`streamRevision`, what a
 * command waits on) only once the checkpoint has moved, so the rule holds there too.
 *
 * Keys must name everything else the answer depends on. Bodies are bounded by their total
 * bytes, least recently used first out; one key holds one body (that of the latest
 * checkpoint seen), so old checkpoints do not pile up. Concurrent misses of one key at
 * one checkpoint compute once.
 */
export class SiteListCache {
  private readonly entries = new Map<string, Entry>();
  private readonly computing = new Map<string, Promise<Buffer>>();
  private total = 0;

  constructor(private readonly budget: number) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.total;
  }

  /** Keys held now, least recently used first. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * The answer for `key` at the read model's current checkpoint: the body computed at this
   * checkpoint if one is held, else `compute()`'s (kept if the checkpoint held still).
   * `known`: the checkpoint as the caller already read it after the request arrived.
   */
  async answer(checkpoint: () => Promise<string | undefined>, key: string, compute: () => Promise<Buffer>, ...known: [string | undefined] | []): Promise<Buffer> {
    const before = known.length > 0 ? known[0] : await checkpoint();
    const hit = this.entries.get(key);
    if (hit && hit.checkpoint === before) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.body;
    }
    // A caller that read the same checkpoint may join: the computation began after that read.
    const flight = JSON.stringify([before ?? null, key]);
    let pending = this.computing.get(flight);
    if (!pending) {
      pending = (async () => {
        const body = await compute();
        if ((await checkpoint()) === before) this.store(key, { checkpoint: before, body });
        return body;
      })().finally(() => this.computing.delete(flight));
      this.computing.set(flight, pending);
    }
    return pending;
  }

  private store(key: string, entry: Entry): void {
    this.drop(key);
    if (entry.body.length > this.budget) return;
    this.entries.set(key, entry);
    this.total += entry.body.length;
    for (const [k, e] of this.entries) {
      if (this.total <= this.budget) break;
      this.entries.delete(k);
      this.total -= e.body.length;
    }
  }

  private drop(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.total -= old.body.length;
  }
}
