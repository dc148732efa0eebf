import { z } from 'zod';
import { isLabelPath, PATH_PATTERN } from './common.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

const whole = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${name} must be a whole number` })
    .transform(Number)
    .pipe(z.int().min(min, { error: `${name} must be between ${min} and ${max}` }).max(max, { error: `${name} must be between ${min} and ${max}` }))
    .default(fallback);

const groupMessage = (issue: { input?: unknown }) => `group ${JSON.stringify(issue.input)} is not a group path`;

const BOOL = { truthy: ['true', '1'], falsy: ['false', '0'] };

/**
 * Search text (`q`): no control characters. None is text a person types, and a NUL could not
 * even travel to MongoDB inside a regular expression (it answered 500 where SQLite answered):
 * refused here, once, for every read-model adapter. The MCP connector's `list_sites` uses it too.
 */
export const SearchText = z
  .string()
  .trim()
  .refine((q) => !/[\u0000-\u001f\u007f]/.test(q), { error: 'q must not contain control characters' });

/**
 * `GET /api/sites` query (spec §5), one string per parameter (empty values count as absent),
 * parsed into the values the read model takes.
 */
export const SiteQueryParams = z.object({
  q: SearchText.optional().meta({ description: 'case-insensitive match on title, slug, group, description and tags (no control characters)' }),
  tag: z.string().trim().optional().meta({ description: 'exact tag' }),
  group: z
    .string()
    .trim()
    .transform((g) => g.replace(/^\/+|\/+$/g, ''))
    .pipe(
      z
        .string()
        .regex(new RegExp(`^(?:${PATH_PATTERN.source.slice(1, -1)})?$`), { error: groupMessage })
        .refine((g) => g === '' || isLabelPath(g), { error: groupMessage }),
    )
    .optional()
    .meta({ description: "the subtree: that group's sites, its descendants, and the flat or parent site whose path equals it" }),
  sort: z
    .enum(['date', 'title', 'slug'], { error: 'sort must be one of date, title, slug' })
    .default('date')
    .meta({ description: 'date: newest first, undated last, then updated_at descending; title and slug: ascending' }),
  hidden: z
    .stringbool({ ...BOOL, error: 'hidden must be true or false' })
    .default(false)
    .meta({ description: 'true includes hidden sites (admins only; ignored for others)' }),
  limit: whole('limit', 1, MAX_LIMIT, DEFAULT_LIMIT).meta({ description: 'page size' }),
  offset: whole('offset', 0, Number.MAX_SAFE_INTEGER, 0),
});
export type SiteQueryParams = z.output<typeof SiteQueryParams>;

