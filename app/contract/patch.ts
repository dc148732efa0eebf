import { z } from 'zod';

const clearable = (description: string) => z.string().nullable().optional().meta({ description: `${description}; null or "" clears it` });

/**
 * `SitePatch` (spec §4/§5): a field set to a value replaces it, `null` clears an optional one,
 * an absent one is left alone; unknown fields are refused. The domain checks lengths and tags.
 */
export const SitePatch = z
  .strictObject({
    title: z.string().optional().meta({ description: 'must not be empty' }),
    description: clearable('description'),
    date: clearable('free text, usually YYYY-MM-DD'),
    tags: z.array(z.string()).nullable().optional().meta({ description: 'replaces the tags; null or [] clears them' }),
    repo: clearable('repository URL'),
    preview: clearable('preview image URL'),
    hidden: z.boolean().optional(),
  })
  .meta({ description: 'Changes to a site’s metadata.' });
export type SitePatch = z.output<typeof SitePatch>;
