import { z } from 'zod';
import { Timestamp } from './common.ts';
import { Actor } from './events.ts';

/** The API `Site` (seed table + spec §3): absent optional fields are omitted, never `null` or `""`. */
export const Site = z
  .object({
    id: z.int().positive().meta({ description: 'unique for the life of the instance; kept across replace, rollback, quarantine and restore' }),
    group: z.string().meta({ description: 'group path, 0–2 labels slash-separated; "" for a flat site' }),
    slug: z.string(),
    title: z.string(),
    description: z.string().meta({ description: 'always present ("" when unset): existing portals and scripts read it unconditionally' }),
    date: z.string().optional().meta({ description: 'free text as given (usually YYYY-MM-DD), sortable as a string' }),
    tags: z.array(z.string()).meta({ description: 'always present ([] when unset)' }),
    repo: z.string().optional(),
    preview: z.string().optional(),
    hidden: z.boolean().meta({ description: 'unlisted: only admins see it in listings and over the API' }),
    size: z.int().nonnegative().meta({ description: 'byte total of the live revision' }),
    has_favicon: z.boolean().optional().meta({ description: 'present when a favicon was detected at publish time' }),
    created_at: Timestamp,
    updated_at: Timestamp.meta({ description: 'when the site last changed: a publish, rollback, metadata edit, unpublish or restore' }),
    updated_by: Actor.optional().meta({ description: 'who made the change of updated_at, as the site’s events name them; only in answers to admins (like the audit history, it names admin keys and users)' }),
    deleted_at: Timestamp.optional().meta({ description: 'only on quarantined sites' }),
    purge_at: Timestamp.optional().meta({ description: 'only in the trash listing: when the site is purged automatically (deleted_at + SITES_DELETED_SITE_TTL)' }),
    url: z.url().meta({ description: 'canonical https://<site host>/ (read-only)' }),
    previews: z.int().nonnegative().meta({ description: 'how many previews the site has (spec §14); they are listed at …/previews, never in the site list' }),
    domains: z.array(z.string()).meta({
      description: 'custom domains the site also answers at (spec §15), sorted; always present ([] when none). Attach and detach them with PUT and DELETE /api/sites/{path}/domains/{domain}',
    }),
  })
  .meta({ description: 'A published site.' });
export type Site = z.infer<typeof Site>;

/** A node of the group tree (the seed's `TreeNode`); every node carries `groups` and `sites`. */
export type TreeNode = { name: string; path: string; site?: Site; groups: TreeNode[]; sites: Site[] };
export const TreeNode: z.ZodType<TreeNode> = z.lazy(() =>
  z
    .object({
      name: z.string().meta({ description: 'the last label of the group; "" for the root' }),
      path: z.string().meta({ description: 'the full group path; "" for the root' }),
      site: Site.optional().meta({ description: 'the site whose full path equals this node’s path' }),
      groups: z.array(TreeNode),
      sites: z.array(Site),
    })
    .meta({ description: 'A group of the tree: child groups and the sites directly in it.' }),
);

/** `GET /api/sites`: the page, the tree of every matching site, and the count before paging. */
export const SitesResponse = z.object({
  sites: z.array(Site).meta({ description: 'the requested page' }),
  tree: TreeNode,
  count: z.int().nonnegative().meta({ description: 'sites matching the filters, before paging' }),
});
export type SitesResponse = z.infer<typeof SitesResponse>;

/** `GET /api/sites/deleted`: the trash. */
export const TrashResponse = z.object({
  sites: z.array(Site).meta({ description: 'quarantined sites, each with deleted_at' }),
  count: z.int().nonnegative(),
});
export type TrashResponse = z.infer<typeof TrashResponse>;
