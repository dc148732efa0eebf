import { z } from 'zod';
import { RevisionRef } from './common.ts';

/**
 * The inputs of the use cases that act on one site, as plain objects: an HTTP route makes
 * one from the path and the body, an MCP tool from its arguments, and both check it with
 * these schemas. `site` is the full path (`docs/app`); its labels are checked by the use
 * case with the domain's own rules (spec §1), after the caller's capability allows it.
 */
export const SiteRef = z.object({
  site: z.string().meta({ description: 'full site path: group labels then slug, e.g. "docs/app" or "demo"' }),
});
export type SiteRef = z.output<typeof SiteRef>;

/** A rollback: the archived revision to make live, `current` (nothing to do) or none (the most recently archived one). */
export const RollbackInput = SiteRef.extend({
  revision: RevisionRef.nullish().meta({ description: 'an archived revision id, or "current" (a no-op); absent: the most recently archived one' }),
});
export type RollbackInput = z.output<typeof RollbackInput>;

/** One revision of a site (`current` for the live one). */
export const RevisionInput = SiteRef.extend({ revision: z.string().meta({ description: "a revision id, or current for the live revision" }) });
export type RevisionInput = z.output<typeof RevisionInput>;
