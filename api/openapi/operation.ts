import { z } from 'zod';
import { faviconType } from '../../domain/favicon.ts';
import { PublishForm } from '../../app/contract/publish.ts';

/**
 * One operation of the registry (operations.ts): a route, described with the schemas the
 * route validates with and answers; and the pieces the operation lists share.
 *
 * In `path`, `{site}` stands for a site path of 1–3 labels; the document spells it once per
 * depth: `{slug}`, `{group}/{slug}`, `{group}/{subgroup}/{slug}`.
 */
export type Operation = {
  readonly id: string;
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  readonly description?: string;
  /** none; key: API keys only (ingest); user: a forward-auth user or any key; admin: an admin of either kind. */
  readonly auth: 'none' | 'key' | 'user' | 'admin';
  /** Path parameters other than `{site}`. */
  readonly params?: Readonly<Record<string, z.ZodType>>;
  readonly query?: z.ZodObject;
  readonly body?: Body;
  readonly ok: { readonly status: 200 | 201 | 202 | 204; readonly reply: Reply };
  /** Error statuses this operation can answer (each with the `{error, code}` body). */
  readonly errors: readonly ErrorStatus[];
};

export type Tag = 'ingest' | 'sites' | 'revisions' | 'trash' | 'keys' | 'connections' | 'activity' | 'webhooks' | 'meta';
export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 507;

export type Body =
  | { readonly kind: 'json'; readonly schema: z.ZodType; readonly required: boolean; readonly description: string }
  | { readonly kind: 'multipart'; readonly schema: z.ZodType; readonly encoding: Readonly<Record<string, string>>; readonly description: string }
  | { readonly kind: 'binary'; readonly types: readonly string[]; readonly description: string };

export type Header = { readonly description: string; readonly schema: z.ZodType };
export type Reply =
  | { readonly kind: 'json'; readonly schema: z.ZodType; readonly description: string }
  | { readonly kind: 'binary'; readonly types: readonly string[]; readonly description: string; readonly headers?: Readonly<Record<string, Header>> }
  | { readonly kind: 'empty'; readonly description: string };

/** The error statuses and what each means here (spec §2). */
export const ERROR_STATUSES: Readonly<Record<ErrorStatus, { readonly name: string; readonly description: string }>> = {
  400: { name: 'Invalid', description: 'invalid: a bad path, label, parameter, field or archive, or a missing index.html' },
  401: { name: 'Unauthenticated', description: 'unauthenticated: no credential, or an unknown, expired or revoked key' },
  403: { name: 'Forbidden', description: 'forbidden: authenticated, but lacking the capability on that target or not an admin; or a cross-origin write by a signed-in user' },
  404: { name: 'NotFound', description: 'not_found: no such site, revision or key (also a hidden site asked for by a non-admin, and a site in the wrong state)' },
  408: { name: 'RequestTimeout', description: 'invalid: the upload arrived slower than the slow-client guard allows' },
  409: { name: 'Conflict', description: 'conflict: rollback with versioning off or nothing archived, or a write that lost a concurrency race twice' },
  413: { name: 'TooLarge', description: 'too_large: body, extracted bytes or entry count over the limits' },
  415: { name: 'UnsupportedMediaType', description: 'unsupported_media_type: the body is not of the expected type' },
  507: { name: 'InsufficientStorage', description: 'insufficient_storage: the file store is out of space; nothing was changed' },
};

/** The favicon types served (spec §2), as the domain's allow-list normalises them. */
export const FAVICON_TYPES = ['image/png', 'image/x-icon', 'image/gif', 'image/jpeg', 'image/webp', 'image/svg+xml'].filter((t) => faviconType(t) === t);

export const ATTACHMENT: Header = { description: 'attachment; filename="…"', schema: z.string() };
export const INERT: Readonly<Record<string, Header>> = {
  'Content-Security-Policy': { description: "default-src 'none'; style-src 'unsafe-inline'; sandbox", schema: z.string() },
  'X-Content-Type-Options': { description: 'nosniff', schema: z.literal('nosniff') },
};

export const json = (schema: z.ZodType, description: string): Reply => ({ kind: 'json', schema, description });
export const empty = (description: string): Reply => ({ kind: 'empty', description });
export const jsonBody = (schema: z.ZodType, description: string, required = true): Body => ({ kind: 'json', schema, required, description });

export const PUBLISH_BODY: Body = {
  kind: 'multipart',
  schema: PublishForm,
  encoding: { meta: 'application/json', bundle: 'application/gzip, application/zip, application/octet-stream', index: 'text/html' },
  description:
    'A `meta` JSON part and exactly one of `bundle` (a .tar.gz or .zip, detected from magic bytes) or `index` (one HTML document). ' +
    'Entries escaping the root, links, devices, duplicates and names with NUL or backslashes are refused (400); limits hold while streaming (413).',
};
export const PUBLISH_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 408, 409, 413, 415, 507];
export const ROLLBACK_DESCRIPTION =
  'Versioning must be on (else 409; also 409 when nothing is archived). Without a revision the most recently archived one becomes live; ' +
  'the live revision moves to the front of the archive, so two rollbacks without a body return to where you started.';
