import type { SiteEvent } from '../../domain/events.ts';
import { parseManifest, type Manifest } from '../../domain/manifest.ts';
import type { ChangeCounts } from '../../domain/manifest-diff.ts';
import type { BlobStore } from '../../domain/ports.ts';

/** A revision's manifest, read from the store (undefined when it is missing). */
export async function loadManifest(blobs: BlobStore, hash: string): Promise<Manifest | undefined> {
  const bytes = await blobs.getBytes(hash);
  return bytes ? parseManifest(bytes) : undefined;
}

/** The decided events with the change counts added to the one of `type` (publish or rollback). */
export function withChangeCounts(events: readonly SiteEvent[], type: 'SitePublished' | 'SiteRolledBack', counts: ChangeCounts): SiteEvent[] {
  return events.map((e) => (e.type === type ? ({ ...e, data: { ...e.data, ...counts } } as SiteEvent) : e));
}
