import { ValidationError } from '../errors.ts';
import type { SiteMeta } from './events.ts';

/** Metadata as given with a publish: every field optional (title is required only for a new site). */
export type MetaInput = {
  readonly title?: string;
  readonly description?: string;
  readonly date?: string;
  readonly tags?: readonly string[];
  readonly repo?: string;
  readonly preview?: string;
  readonly hidden?: boolean;
};

/** A PATCH: a field set to a value replaces it; `null` clears an optional field; absent leaves it. */
export type MetaPatch = {
  readonly [K in keyof MetaInput]?: MetaInput[K] | null;
};

const TEXT_FIELDS = ['title', 'description', 'date', 'repo', 'preview'] as const;
const MAX_TEXT = 2000;
const MAX_TAGS = 50;
const MAX_TAG = 64;

/** Validates the optional metadata fields shared by publish `meta` and PATCH bodies. */
export function parseMetaFields(raw: Record<string, unknown>, allowNull: boolean): MetaPatch {
  const out: Record<string, unknown> = {};
  for (const field of TEXT_FIELDS) {
    const v = raw[field];
    if (v === undefined) continue;
    if (v === null && allowNull && field !== 'title') {
      out[field] = null;
      continue;
    }
    if (typeof v !== 'string') throw new ValidationError(`${field} must be a string`);
    if (v.length > MAX_TEXT) throw new ValidationError(`${field} is longer than ${MAX_TEXT} characters`);
    const trimmed = v.trim();
    if (field === 'title' && trimmed === '') throw new ValidationError('title must not be empty');
    out[field] = trimmed === '' ? (allowNull ? null : undefined) : v;
  }
  if (raw.tags !== undefined) {
    if (raw.tags === null && allowNull) out.tags = null;
    else {
      if (!Array.isArray(raw.tags) || !raw.tags.every((t) => typeof t === 'string')) {
        throw new ValidationError('tags must be a list of strings');
      }
      const tags = [...new Set((raw.tags as string[]).map((t) => t.trim()).filter((t) => t !== ''))];
      if (tags.length > MAX_TAGS) throw new ValidationError(`at most ${MAX_TAGS} tags`);
      if (tags.some((t) => t.length > MAX_TAG)) throw new ValidationError(`a tag is longer than ${MAX_TAG} characters`);
      out.tags = tags;
    }
  }
  if (raw.hidden !== undefined) {
    if (typeof raw.hidden !== 'boolean') throw new ValidationError('hidden must be true or false');
    out.hidden = raw.hidden;
  }
  return out as MetaPatch;
}

function clean(meta: Record<string, unknown>): SiteMeta {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  out.hidden = meta.hidden === true;
  return out as SiteMeta;
}

/** Publish metadata over the existing metadata: omitted fields keep their value. */
export function mergeMeta(existing: SiteMeta | undefined, input: MetaInput): SiteMeta {
  return clean({ ...(existing ?? {}), ...stripUndefined(input) });
}

export function patchMeta(existing: SiteMeta, patch: MetaPatch): SiteMeta {
  return clean({ ...existing, ...stripUndefined(patch) });
}

function stripUndefined(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** Do two stored metadata records say the same (field order aside)? */
export function sameMeta(a: SiteMeta, b: SiteMeta): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const x = (a as Record<string, unknown>)[key];
    const y = (b as Record<string, unknown>)[key];
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
    } else if (x !== y) return false;
  }
  return true;
}
