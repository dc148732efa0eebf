import type { Actor } from '../../domain/events.ts';
import type { ManifestDiff } from '../../domain/manifest-diff.ts';
import type { SiteAddress } from '../../domain/paths.ts';
import { pageUrlPath, type PreviewInfo } from '../../domain/site/previews.ts';
import type { Preview, PreviewResult } from '../contract/preview.ts';
import type { AppDeps } from '../deps.ts';

const UNKNOWN: Actor = { kind: 'system', name: 'unknown' };

/** `Preview` (spec §14) of a site's preview. */
export function previewJson(deps: Pick<AppDeps, 'siteUrl'>, address: SiteAddress, p: PreviewInfo): Preview {
  const m = p.meta;
  return {
    name: p.name,
    url: deps.siteUrl(address, { kind: 'preview', name: p.name }),
    revision: p.revision.id,
    files: p.revision.files,
    size: p.revision.size,
    ...(m.title !== undefined ? { title: m.title } : {}),
    ...(m.description !== undefined ? { description: m.description } : {}),
    ...(m.repo !== undefined ? { repo: m.repo } : {}),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    expires_at: p.expiresAt,
    created_by: p.createdBy ?? UNKNOWN,
    ...(p.changes ? { changes: { added: p.changes.filesAdded, changed: p.changes.filesChanged, removed: p.changes.filesRemoved } } : {}),
  };
}

/** The preview URL of each page (paths from `changedPages`). */
export function pageUrls(deps: Pick<AppDeps, 'siteUrl'>, address: SiteAddress, name: string, pages: readonly string[]): string[] {
  const base = deps.siteUrl(address, { kind: 'preview', name });
  return pages.map((page) => `${base.replace(/\/$/, '')}${pageUrlPath(page)}`);
}

/** `PreviewResult` (spec §14): the preview, its counts against live now, and the pages to link to. */
export function previewResult(
  deps: Pick<AppDeps, 'siteUrl'>,
  address: SiteAddress,
  preview: PreviewInfo,
  diff: ManifestDiff,
  pages: readonly string[],
  unchanged: boolean,
): PreviewResult {
  return {
    preview: previewJson(deps, address, preview),
    changes: { added: diff.added.length, changed: diff.changed.length, removed: diff.removed.length },
    pages: pageUrls(deps, address, preview.name, pages),
    unchanged,
  };
}
