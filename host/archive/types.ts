import type { Readable } from 'node:stream';

/** Limits enforced while an archive streams (spec §4: SITES_MAX_EXTRACT_*). */
export type ArchiveLimits = { maxEntries: number; maxBytes: number };

/** One regular file of an archive: its normalised relative POSIX path and its bytes. */
export type ArchiveEntry = { path: string; content: Readable };

export type ArchiveFormat = 'tar.gz' | 'zip';
