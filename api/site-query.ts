import { ValidationError } from '../domain/errors.ts';
import { isLabel } from '../domain/paths.ts';
import type { SiteQuery, SiteSort } from '../projections/read-model.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

function one(value: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(value)) {
    if (value.length > 1) throw new ValidationError(`${name} was given more than once`);
    return value[0];
  }
  return value;
}

function integer(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ValidationError(`${name} must be a whole number`);
  const n = Number(raw);
  if (n < min || n > max) throw new ValidationError(`${name} must be between ${min} and ${max}`);
  return n;
}

/** Validates `GET /api/sites` parameters and applies the spec's defaults (§5). */
export function parseSiteQuery(query: Record<string, string | string[] | undefined>, isAdmin: boolean): SiteQuery {
  const q = one(query.q, 'q')?.trim();
  const tag = one(query.tag, 'tag')?.trim();
  const group = one(query.group, 'group')?.trim().replace(/^\/+|\/+$/g, '');
  if (group && (group.split('/').length > 3 || !group.split('/').every(isLabel))) {
    throw new ValidationError(`group ${JSON.stringify(group)} is not a group path`);
  }
  const sortRaw = one(query.sort, 'sort') || 'date';
  if (sortRaw !== 'date' && sortRaw !== 'title' && sortRaw !== 'slug') throw new ValidationError('sort must be one of date, title, slug');
  const hiddenRaw = one(query.hidden, 'hidden');
  if (hiddenRaw !== undefined && !['true', 'false', '1', '0', ''].includes(hiddenRaw)) throw new ValidationError('hidden must be true or false');
  const hidden = hiddenRaw === 'true' || hiddenRaw === '1';
  return {
    ...(q ? { q } : {}),
    ...(tag ? { tag } : {}),
    ...(group ? { group } : {}),
    sort: sortRaw as SiteSort,
    // hidden=true is honoured for admins only; for everyone else it is ignored.
    includeHidden: hidden && isAdmin,
    limit: integer(one(query.limit, 'limit'), 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT),
    offset: integer(one(query.offset, 'offset'), 'offset', 0, Number.MAX_SAFE_INTEGER, 0),
  };
}
