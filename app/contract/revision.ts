import { z } from 'zod';
import { RevisionId, Timestamp } from './common.ts';

/** `Revision` (spec §3): an immutable snapshot of a site's files. */
export const Revision = z
  .object({
    id: RevisionId,
    current: z.boolean().meta({ description: 'true for the live revision' }),
    created_at: Timestamp,
    size: z.int().nonnegative().meta({ description: 'bytes' }),
    files: z.int().nonnegative().meta({ description: 'file count' }),
    number: z.int().positive().optional().meta({
      description: 'its number among the site’s revisions: 1 for the first publish, one more per new revision (a rollback makes none; a purge starts again at 1). Always present, but on a MongoDB read model projected before permalinks existed until `sites replay`',
    }),
    url: z.url().optional().meta({ description: 'its permalink, https://v<number>--<slug>.<group>.<base>/, served while the revision is retained' }),
  })
  .meta({ description: 'A revision of a site.' });
export type Revision = z.infer<typeof Revision>;

/**
 * Live first, then archived, most recently archived first; with what they cost together
 * (the sum of their sizes) against what the shared store holds for them (each content once).
 */
export const RevisionsResponse = z.object({
  revisions: z.array(Revision),
  logical_bytes: z.int().nonnegative().meta({ description: 'the sum of the retained revisions’ sizes' }),
  stored_bytes: z.int().nonnegative().meta({ description: 'what the store holds for them: each distinct content once' }),
});
export type RevisionsResponse = z.infer<typeof RevisionsResponse>;
