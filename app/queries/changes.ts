import { parseManifest, type Manifest } from '../../domain/manifest.ts';
import type { BlobStore } from '../../domain/ports.ts';

/** A revision's manifest, read from the store (undefined when it is missing). */
export async function loadManifest(blobs: BlobStore, hash: string): Promise<Manifest | undefined> {
  const bytes = await blobs.getBytes(hash);
  return bytes ? parseManifest(bytes) : undefined;
}
