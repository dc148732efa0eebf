import { z } from 'zod';
import { parseMeta } from './parse.ts';
import { Timestamp } from './common.ts';
import { Site } from './site.ts';

/**
 * The publish `meta` part (spec §4). Types are checked here; the domain checks the rest
 * (labels of group and slug, reserved slugs, lengths, title required for a new site).
 */
export const PublishMeta = z
  .object({
    group: z.string().nullish().meta({ description: 'group path of 0–2 labels, slash-separated; "" or absent for a flat site' }),
    slug: z.string().min(1, { error: 'meta.slug is required' }).meta({ description: 'a label; not one of revisions, rollback, restore, purge, favicon, events, deleted' }),
    title: z.string().optional().meta({ description: 'required when the site is new; defaults to the existing title on replace' }),
    description: z.string().optional(),
    date: z.string().optional().meta({ description: 'free text, usually YYYY-MM-DD' }),
    tags: z.array(z.string()).optional(),
    repo: z.string().optional(),
    preview: z.string().optional(),
    hidden: z.boolean().optional().meta({ description: 'unlisted: shown to admins only' }),
  })
  .meta({ description: 'Metadata of a publish; omitted fields keep their value on replace.' });
export type PublishMeta = z.output<typeof PublishMeta>;

/**
 * The publish `meta` as a request carries it: a JSON object, or JSON text (the multipart
 * field, a deploy body that quotes it), checked with `PublishMeta`, errors naming `meta.…`.
 */
export function readPublishMeta(value: unknown): PublishMeta {
  return parseMeta(PublishMeta, value);
}

const Archive = z.string().meta({
  contentMediaType: 'application/octet-stream',
  description: 'a .tar.gz or .zip archive with index.html at its root (one common top-level folder is stripped); the format is detected from magic bytes',
});
const IndexDocument = z.string().meta({ contentMediaType: 'text/html', description: 'one HTML document that becomes index.html' });

/** The multipart body: `meta` and exactly one of `bundle` or `index` (documentation; busboy streams it). */
export const PublishForm = z.xor([z.object({ meta: PublishMeta, bundle: Archive }), z.object({ meta: PublishMeta, index: IndexDocument })]);

/** `PublishResult` (spec §4). */
export const PublishResult = z.object({
  url: z.url(),
  group: z.string(),
  slug: z.string(),
  updated_at: Timestamp,
  revision: z.string().meta({ description: 'the id of the live revision: the new one, or the one already live when nothing changed' }),
  site: Site,
  permalink: z.url().optional().meta({ description: 'the revision’s permanent address, https://v<number>--<slug>.<group>.<base>/ (spec §14)' }),
  unchanged: z.boolean().meta({
    description: 'true when the files were the live revision\'s and the meta changed nothing: nothing was recorded and updated_at stayed (spec §4)',
  }),
});
export type PublishResult = z.infer<typeof PublishResult>;
