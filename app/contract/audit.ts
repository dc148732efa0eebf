import { z } from 'zod';
import { RevisionId } from './common.ts';

const Bytes = z.int().nonnegative();
const FileSize = z.object({ path: z.string(), size: Bytes });

/** Spec §12: what changed between two revisions, files compared by content hash. */
export const RevisionDiff = z
  .object({
    from: RevisionId.meta({ description: 'the first revision (`current` resolved to the live id)' }),
    to: RevisionId.meta({ description: 'the second revision (`current` resolved to the live id)' }),
    added: z.array(FileSize),
    removed: z.array(FileSize),
    changed: z.array(z.object({ path: z.string(), size_before: Bytes, size_after: Bytes })),
    unchanged: z.int().nonnegative().meta({ description: 'files with the same content at the same path' }),
    bytes_added: Bytes.meta({ description: 'added files plus the new sizes of changed files' }),
    bytes_removed: Bytes.meta({ description: 'removed files plus the old sizes of changed files' }),
  })
  .meta({ description: 'The difference between two revisions; each list sorted by path.' });
export type RevisionDiff = z.infer<typeof RevisionDiff>;

/** The whole service's storage: what content addressing saves. */
export const ServiceStorage = z
  .object({
    sites: z.int().nonnegative().meta({ description: 'live and quarantined sites' }),
    revisions: z.int().nonnegative().meta({ description: 'retained revisions (live and archived)' }),
    logical_bytes: Bytes.meta({ description: 'the sum of every retained revision’s size' }),
    stored_bytes: Bytes.meta({ description: 'what the shared store holds for them: each distinct content once' }),
  })
  .meta({ description: 'Storage of the whole service.' });
export type ServiceStorage = z.infer<typeof ServiceStorage>;
