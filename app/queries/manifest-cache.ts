import { parseManifest, type Manifest } from '../../domain/manifest.ts';
import type { BlobStore } from '../../domain/ports.ts';

/**
 * Parsed manifests by hash. A manifest never changes, so entries never go stale; the
 * cache is bounded by a file-count budget and evicts the least recently used.
 */
export class ManifestCache {
  private readonly entries = new Map<string, Manifest>();
  private files = 0;
  private readonly loading = new Map<string, Promise<Manifest | undefined>>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly maxFiles = 500_000,
  ) {}

  async get(hash: string): Promise<Manifest | undefined> {
    const hit = this.entries.get(hash);
    if (hit) {
      this.entries.delete(hash);
      this.entries.set(hash, hit);
      return hit;
    }
    let pending = this.loading.get(hash);
    if (!pending) {
      pending = this.load(hash).finally(() => this.loading.delete(hash));
      this.loading.set(hash, pending);
    }
    return pending;
  }

  private async load(hash: string): Promise<Manifest | undefined> {
    const bytes = await this.blobs.getBytes(hash);
    if (!bytes) return undefined;
    const manifest = parseManifest(bytes);
    this.entries.set(hash, manifest);
    this.files += manifest.files.size;
    for (const [key, value] of this.entries) {
      if (this.files <= this.maxFiles || key === hash) break;
      this.entries.delete(key);
      this.files -= value.files.size;
    }
    return manifest;
  }
}
