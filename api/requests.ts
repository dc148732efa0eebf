import type { PublishTarget } from '../app/publish/publish.ts';
import { authorize, type Identity } from '../domain/auth.ts';
import { ValidationError } from '../domain/errors.ts';
import { validateGrant } from '../domain/grants.ts';
import type { KeyRequest } from '../domain/key/decide.ts';
import { fullPath, siteAddress } from '../domain/paths.ts';
import { parseMetaFields, type MetaInput, type MetaPatch } from '../domain/site/meta.ts';
import { parseInput } from './schemas/parse.ts';
import { SitePatch } from './schemas/patch.ts';
import { PublishMeta } from './schemas/publish.ts';
import { RollbackBody } from './schemas/rollback.ts';

/**
 * Request input → what the application layer takes. The shapes are checked with the
 * schemas of api/schemas (the HTTP routes and the MCP tools share these functions); the
 * domain's own rules (labels, reserved slugs, metadata lengths, grant targets) are applied
 * by the domain functions called here or by the command itself.
 */

/** Parses the publish `meta` JSON part (spec §4) into a target, and checks `publish` on it; `noteSite` hears the target first. */
export function preparePublish(identity: Identity, metaText: string, noteSite?: (site: string) => void): PublishTarget {
  let raw: unknown;
  try {
    raw = JSON.parse(metaText);
  } catch {
    throw new ValidationError('meta is not valid JSON');
  }
  const fields = parseInput(PublishMeta, raw, { name: 'meta', prefix: 'meta' });
  const address = siteAddress(fields.group ?? '', fields.slug);
  const meta = parseMetaFields(fields, false) as MetaInput;
  // Known before the capability is checked: a refused publish is logged with the site it tried.
  noteSite?.(fullPath(address));
  authorize(identity, 'publish', address);
  return { address, meta };
}

/** A `SitePatch` body (spec §4/§5): known fields only; `null` clears an optional one. */
export function parsePatch(body: unknown): MetaPatch {
  return parseMetaFields(parseInput(SitePatch, body), true);
}

/** A rollback body: the revision asked for, or undefined for the most recently archived one. */
export function parseRollback(body: unknown): string | undefined {
  return parseInput(RollbackBody, body)?.revision ?? undefined;
}

/** Key creation input, from `POST /api/keys` or `sites keys create`. */
export type IssueKeyInput = { name: unknown; admin?: unknown; grants?: unknown; expires_at?: unknown };

/** Checks key creation input before anything is written; the domain then checks scope and expiry. */
export function parseKeyInput(input: IssueKeyInput): KeyRequest {
  if (typeof input.name !== 'string' || input.name.trim() === '') throw new ValidationError('name is required');
  if (input.name.length > 200) throw new ValidationError('name is longer than 200 characters');
  if (input.admin !== undefined && typeof input.admin !== 'boolean') throw new ValidationError('admin must be true or false');
  if (input.grants !== undefined && !Array.isArray(input.grants)) throw new ValidationError('grants must be a list');
  const grants = ((input.grants as unknown[] | undefined) ?? []).map(validateGrant);
  // `""` means no expiry, as portals of this kind send it for an empty date field.
  const expires = input.expires_at === null || input.expires_at === '' ? undefined : input.expires_at;
  if (expires !== undefined && typeof expires !== 'string') throw new ValidationError('expires_at must be an RFC 3339 date-time');
  return { name: input.name.trim(), admin: input.admin === true, grants, ...(expires !== undefined ? { expiresAt: expires } : {}) };
}
