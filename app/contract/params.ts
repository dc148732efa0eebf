import { z } from 'zod';
import { RESERVED_SLUGS } from '../../domain/paths.ts';
import { Label, RevisionRef } from './common.ts';

/**
 * Path parameters. A site path of 1–3 labels is documented once per depth:
 * `{slug}`, `{group}/{slug}`, `{group}/{subgroup}/{slug}`; the routes read it with the
 * domain's `parseSitePath`, which these schemas describe.
 */
export const GroupParam = Label.meta({ description: 'the top-level group label' });
export const SubgroupParam = Label.meta({ description: 'the second group label' });
export const SlugParam = Label.regex(new RegExp(`^(?!(?:${[...RESERVED_SLUGS].join('|')})$)`)).meta({
  description: `the site's slug (a label; not one of ${[...RESERVED_SLUGS].join(', ')})`,
});
export const RevisionParam = RevisionRef.meta({ description: 'a revision id, or current for the live revision' });

/** A side of a diff (spec §12, §14): a revision, `current`, or `preview:<name>`. */
export const DiffSideParam = z
  .union([RevisionRef, z.string().regex(/^preview:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/)])
  .meta({ description: 'a revision id, current for the live revision, or preview:<name> for a preview’s current content' });

/** `{id}` of `DELETE /api/keys/{id}`: a positive whole number (anything else is no such key, 404). */
export const KeyIdParam = z.string().regex(/^\d+$/).transform(Number).pipe(z.int().positive()).meta({ description: 'key id' });

/** `GET …/revisions/{rev}/file?path=a/b.css`. */
export const FileQuery = z.object({
  path: z
    .string({ error: 'path is required' })
    .transform((p) => p.replace(/^\/+/, ''))
    .pipe(z.string().min(1, { error: 'path is required' }))
    .meta({ description: 'the file, relative to the site root (a leading slash is ignored)', examples: ['css/site.css'] }),
});
