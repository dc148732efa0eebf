/**
 * A least-recently-inserted cache of byte buffers with a total size budget. Used for
 * content-addressed bodies, which never go stale, so eviction is the only policy needed.
 */
export class ByteCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(key: string): Buffer | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: Buffer): void {
    const old = this.entries.get(key);
    if (old) this.bytes -= old.length;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}
