import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { Actor } from '../../domain/events.ts';
import { changeCounts, diffManifests, type ManifestDiff } from '../../domain/manifest-diff.ts';
import { fullPath } from '../../domain/paths.ts';
import { nowNanos } from '../../domain/revision-id.ts';
import { readable } from '../../domain/site/lifecycle.ts';
import { changedPages, findPreview, type PreviewMeta } from '../../domain/site/previews.ts';
import { siteCommands } from '../aggregates.ts';
import type { PreviewMetaInput, PreviewResult } from '../contract/preview.ts';
import type { AppDeps } from '../deps.ts';
import type { DroppedRevision } from '../jobs/gc.ts';
import { storeAndCommit } from '../publish/commit.ts';
import type { IncomingFile } from '../publish/store-files.ts';
import { previewResult } from './result.ts';
import { previewTarget, type PreviewTarget } from './target.ts';

/** Spec §14: a preview lives 336 hours after its last publish unless SITES_PREVIEW_TTL says otherwise. */
export const DEFAULT_PREVIEW_TTL_MS = 336 * 3_600_000;
/** Spec §14: at most 50 previews per site unless SITES_MAX_PREVIEWS_PER_SITE says otherwise. */
export const DEFAULT_MAX_PREVIEWS = 50;

export type PublishPreviewInput = {
  readonly site: string;
  readonly name: string;
  /** What the preview is; read just before the switch (a multipart `meta` part may follow the files). */
  readonly meta?: PreviewMetaInput | (() => PreviewMetaInput | undefined);
  /** The files as they arrive; read only once authorized. */
  readonly files: AsyncIterable<IncomingFile>;
  /** Awaited just before the switch: lets the caller veto (a multipart body with a bad trailing part). */
  readonly beforeCommit?: () => Promise<void>;
};

/**
 * `PUT /ingest/sites/{path}/previews/{name}` and the MCP `publish_site` with `preview`
 * (spec §14): the files become the preview's content beside the live site, which they never
 * touch. Needs `preview` on the site (`publish` implies it), checked before a byte is read,
 * and the site live. Same archive rules, limits, `_redirects`/`_headers` and favicon
 * detection as a publish; the same files and description again record nothing.
 */
export async function publishPreview(deps: AppDeps, identity: Identity, input: PublishPreviewInput): Promise<PreviewResult> {
  const target = previewTarget(identity, input.site, input.name);
  const meta = input.meta;
  return commitPreview(deps, identity.actor, target, typeof meta === 'function' ? meta : () => meta, input.files, input.beforeCommit);
}

/** The one preview publish path (archive, deploy, MCP), behind a use case that authorized it. */
export async function commitPreview(
  deps: AppDeps,
  actor: Actor,
  target: PreviewTarget,
  meta: () => PreviewMetaInput | undefined,
  files: AsyncIterable<IncomingFile>,
  beforeCommit: () => Promise<void> = async () => undefined,
): Promise<PreviewResult> {
  const { address, name } = target;
  const ttl = deps.settings.previewTtlMs ?? DEFAULT_PREVIEW_TTL_MS;
  return storeAndCommit(deps, files, {
    // Refused before a byte is stored: a preview stands beside a live site (decided again on the stream).
    precheck: async () => {
      const site = await deps.queries.getSite(fullPath(address));
      if (!site || !readable(site.status)) throw new NotFoundError(`no live site ${fullPath(address)}: publish it once first`);
    },
    beforeCommit,
    commit: async ({ content, manifest }) => {
      let diff: ManifestDiff | undefined;
      let pages: string[] = [];
      const { before, state, events } = await siteCommands(deps).handle(address, actor, async (state) => {
        // Against the live revision as this attempt sees it (a lost race prepares again).
        diff = diffManifests(state.live ? await deps.manifests.get(state.live.manifest) : undefined, manifest);
        pages = changedPages(diff);
        return {
          type: 'PublishPreview',
          address,
          name,
          meta: previewMeta(meta()),
          content,
          nowNanos: nowNanos(),
          expiresAt: new Date(deps.now().getTime() + ttl).toISOString(),
          maxPreviews: deps.settings.maxPreviewsPerSite ?? DEFAULT_MAX_PREVIEWS,
          changes: changeCounts(diff),
          pages,
        };
      });
      const preview = findPreview(state.previews, name);
      if (!preview || !diff) throw new Error(`preview ${name} of ${fullPath(address)} missing after its publish`);
      // Its earlier content, when this publish replaced it, is no longer retained.
      const old = findPreview(before.previews, name)?.revision;
      const dropped: DroppedRevision[] = old && old.manifest !== preview.revision.manifest ? [{ manifest: old.manifest, ...(old.favicon ? { favicon: old.favicon.hash } : {}) }] : [];
      const unchanged = events.length === 0;
      return { result: previewResult(deps, address, preview, diff, pages, unchanged), unchanged, dropped };
    },
  });
}

/** The description as the domain keeps it: only the fields given. */
function previewMeta(input: PreviewMetaInput | undefined): PreviewMeta {
  const out: { -readonly [K in keyof PreviewMeta]: PreviewMeta[K] } = {};
  if (input?.title !== undefined) out.title = input.title;
  if (input?.description !== undefined) out.description = input.description;
  if (input?.repo !== undefined) out.repo = input.repo;
  return out;
}
