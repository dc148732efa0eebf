import type { Manifest } from './manifest.ts';

/** What changed between two revisions, files compared by content hash (spec §12). */
export type ManifestDiff = {
  readonly added: { path: string; size: number }[];
  readonly removed: { path: string; size: number }[];
  readonly changed: { path: string; size_before: number; size_after: number }[];
  readonly unchanged: number;
  /** Added files plus the new sizes of changed ones. */
  readonly bytesAdded: number;
  /** Removed files plus the old sizes of changed ones. */
  readonly bytesRemoved: number;
};

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Compares `before` (none: a new site, every file added) with `after`; lists sorted by path. */
export function diffManifests(before: Manifest | undefined, after: Manifest): ManifestDiff {
  const added: ManifestDiff['added'] = [];
  const removed: ManifestDiff['removed'] = [];
  const changed: ManifestDiff['changed'] = [];
  let unchanged = 0;
  let bytesAdded = 0;
  let bytesRemoved = 0;
  for (const [path, entry] of after.files) {
    const old = before?.files.get(path);
    if (!old) {
      added.push({ path, size: entry.size });
      bytesAdded += entry.size;
    } else if (old.hash !== entry.hash) {
      changed.push({ path, size_before: old.size, size_after: entry.size });
      bytesAdded += entry.size;
      bytesRemoved += old.size;
    } else unchanged++;
  }
  for (const [path, entry] of before?.files ?? []) {
    if (!after.files.has(path)) {
      removed.push({ path, size: entry.size });
      bytesRemoved += entry.size;
    }
  }
  return { added: added.sort(byPath), removed: removed.sort(byPath), changed: changed.sort(byPath), unchanged, bytesAdded, bytesRemoved };
}

/** The counts a publish or rollback event carries, so the history reads as a changelog. */
export type ChangeCounts = {
  readonly filesAdded: number;
  readonly filesChanged: number;
  readonly filesRemoved: number;
  readonly bytesAdded: number;
  readonly bytesRemoved: number;
};

export function changeCounts(diff: ManifestDiff): ChangeCounts {
  return { filesAdded: diff.added.length, filesChanged: diff.changed.length, filesRemoved: diff.removed.length, bytesAdded: diff.bytesAdded, bytesRemoved: diff.bytesRemoved };
}
