/**
 * Which blobs are still referenced: what garbage collection asks before it deletes a file.
 * Written by the publish command (a manifest lists its files; that never changes, so the
 * index is content-derived and idempotent) and answered over the retained revisions of the
 * projected sites and the open deploy sessions.
 */
export interface BlobIndex {
  /**
   * Records which blobs a manifest lists. Idempotent; kept by a read-model `reset()`
   * (it describes content, not history).
   */
  indexManifest(manifest: string, blobs: readonly string[]): Promise<void>;
  /**
   * The subset of `candidates` still referenced by a retained revision (live or archived,
   * of a live or quarantined site): as a file of its manifest, its manifest, or its favicon;
   * or by a deploy that has not been deleted yet: as a digest of its manifest, or that manifest.
   */
  referencedBlobs(candidates: readonly string[]): Promise<Set<string>>;
}
