import { z } from 'zod';
import { Capability } from './common.ts';

/** `Grant` as the API answers it (spec §3): permissions are canonical, each once. */
export const Grant = z
  .object({
    kind: z.enum(['group', 'site']),
    target: z.string().meta({ description: 'a group path ("docs"; "" covers every site) or, for kind site, "group/slug"' }),
    permissions: z.array(Capability),
  })
  .meta({ description: 'Capabilities on a target: a group covers its subtree and the site of the same path; a site only itself.' });

/**
 * A grant as a request gives it: the shape is checked here; the domain checks that the target is
 * canonical (no empty label, trailing slash, upper case, more than 3 labels) and drops duplicates.
 */
export const GrantRequest = z.object({
  kind: z.enum(['group', 'site']),
  target: z.string().meta({ description: 'canonical: lowercase labels, no empty label, no trailing slash, at most 3 labels' }),
  permissions: z.array(Capability).min(1),
});
