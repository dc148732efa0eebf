import { z } from 'zod';
import { Timestamp } from './common.ts';
import { PublishMeta } from './publish.ts';

/** A SHA-256 digest as the deploy protocol spells it (spec §10). */
export const Digest = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ description: 'SHA-256 of the content: 64 lowercase hex characters' });

/**
 * `POST /ingest/deploys` (spec §10): the publish `meta` and the manifest. Documentation of
 * the shape; the route checks `meta` as a publish does and `files` with the domain's path
 * rules (`parseDeployFiles`), so each error names the offending path.
 */
export const DeployRequest = z
  .object({
    meta: PublishMeta,
    preview: z.string().optional().meta({
      description: 'publish the preview of this name of the site (spec §14) instead of the live site: needs the preview capability, the site live; publish answers PreviewResult',
    }),
    files: z.record(z.string(), Digest).meta({
      description:
        'path → SHA-256 of every file of the site. Paths follow the archive rules (relative, no "..", no NUL or backslash, no duplicates); ' +
        'index.html is required; at most SITES_MAX_EXTRACT_ENTRIES paths. The body may be sent with Content-Encoding: gzip.',
      examples: [{ 'index.html': 'a'.repeat(64), 'css/site.css': 'b'.repeat(64) }],
    }),
  })
  .meta({ description: 'An incremental deploy: what the site will contain, by digest.' });

/** The answer to `POST /ingest/deploys`. */
export const DeployCreated = z
  .object({
    id: z.string().meta({ description: 'the deploy, for the upload and publish calls' }),
    required: z.array(Digest).meta({
      description: 'the digests no revision of this site (live, archived or in the trash) holds: upload each once; never depends on other sites',
    }),
    expires_at: Timestamp.meta({ description: 'an unpublished deploy ends then (one hour), and its uploads that nothing else references are collected' }),
  })
  .meta({ description: 'An open deploy.' });
export type DeployCreated = z.infer<typeof DeployCreated>;

/** `{id}` of the deploy calls. */
export const DeployIdParam = z.string().min(1).meta({ description: 'the deploy id from POST /ingest/deploys' });
/** `{sha256}` of an upload. */
export const DigestParam = Digest.meta({ description: 'SHA-256 of the body: 64 lowercase hex characters' });
