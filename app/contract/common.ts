import { z } from 'zod';
import { CAPABILITIES } from '../../domain/grants.ts';
import { isLabel, MAX_DEPTH, MAX_LABEL_LENGTH } from '../../domain/paths.ts';
import { isRevisionId } from '../../domain/revision-id.ts';

/** An instant as the server writes it (`Date.toISOString()`, UTC). */
export const Timestamp = z.iso.datetime().meta({ description: 'RFC 3339 date-time, UTC' });

const LABEL_SOURCE = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';

/** One DNS label of a site path (spec §1); the domain's `isLabel` is the rule, the pattern documents it. */
export const Label = z
  .string()
  .max(MAX_LABEL_LENGTH)
  .regex(new RegExp(`^${LABEL_SOURCE}$`))
  .refine(isLabel)
  .meta({ description: 'a label: lowercase letters, digits and inner hyphens, at most 63 characters' });

/** A path of 1–3 labels, slash-separated (`docs`, `grp/sub`, `docs/app`). */
export const PATH_PATTERN = new RegExp(`^${LABEL_SOURCE}(?:/${LABEL_SOURCE}){0,${MAX_DEPTH - 1}}$`);
export const isLabelPath = (path: string) => PATH_PATTERN.test(path) && path.split('/').every(isLabel);

const revisionMessage = (issue: { path?: readonly PropertyKey[] }) =>
  `${issue.path?.length ? issue.path.join('.') : 'revision'} must be a revision id (YYYYMMDDTHHMMSS.nnnnnnnnnZ) or "current"`;

/** A revision id, `YYYYMMDDTHHMMSS.nnnnnnnnnZ` (the UTC time of its publish, with nanoseconds). */
export const RevisionId = z
  .string()
  .regex(/^\d{8}T\d{6}\.\d{9}Z$/, { error: revisionMessage })
  .refine(isRevisionId, { error: revisionMessage })
  .meta({ description: 'revision id: the UTC time of its publish with nanoseconds, YYYYMMDDTHHMMSS.nnnnnnnnnZ', examples: ['20261121T101500.123456789Z'] });

/** A revision id, or `current` for the live revision. */
export const RevisionRef = z.union([z.literal('current'), RevisionId], { error: revisionMessage });

/** What a grant allows on its target (spec §2). */
export const Capability = z.enum(CAPABILITIES);
