import type { ChangeCounts } from '../manifest-diff.ts';

/** One immutable snapshot of a site's files, as recorded when it was published. */
export type RevisionInfo = {
  readonly id: string;
  /** SHA-256 of the manifest blob (path → hash, size, type). */
  readonly manifest: string;
  readonly files: number;
  /** Byte total of the revision's files. */
  readonly size: number;
  readonly favicon?: { readonly hash: string; readonly type: string };
  /**
   * Its number among the site's revisions (spec §14: 1 for the first publish, one more per new
   * revision, again from 1 after a purge), which its permalink `v<number>--…` names. Set by
   * `decide` since permalinks exist; `evolve` counts it for events written before.
   */
  readonly number?: number;
};

/** Site metadata as stored: absent optional fields are left out. */
export type SiteMeta = {
  readonly title: string;
  readonly description?: string;
  readonly date?: string;
  readonly tags?: readonly string[];
  readonly repo?: string;
  readonly preview?: string;
  readonly hidden: boolean;
};

/** Events of a `site-…` stream. A purge ends an incarnation; a later publish starts the next one. */
export type SiteEvent =
  | {
      readonly type: 'SitePublished';
      readonly data: {
        readonly siteId: number;
        readonly group: string;
        readonly slug: string;
        /** True when this publish started a new incarnation (new site id). */
        readonly created: boolean;
        readonly revision: RevisionInfo;
        readonly meta: SiteMeta;
      } & Partial<ChangeCounts>;
    }
  | { readonly type: 'SiteArchived'; readonly data: { readonly siteId: number; readonly revisionId: string } }
  | {
      readonly type: 'RevisionDropped';
      readonly data: { readonly siteId: number; readonly revisionId: string; readonly manifest: string; readonly favicon?: string };
    }
  | {
      readonly type: 'SiteRolledBack';
      readonly data: { readonly siteId: number; readonly revisionId: string; readonly previousRevisionId: string } & Partial<ChangeCounts>;
    }
  | { readonly type: 'SiteQuarantined'; readonly data: { readonly siteId: number } }
  | { readonly type: 'SiteRestored'; readonly data: { readonly siteId: number } }
  | {
      readonly type: 'SitePurged';
      readonly data: {
        readonly siteId: number;
        readonly revisions: readonly { readonly id: string; readonly manifest: string; readonly favicon?: string }[];
      };
    }
  | { readonly type: 'SitePatched'; readonly data: { readonly siteId: number; readonly meta: SiteMeta } }
  // Custom domains (spec §15), recorded by domains.ts.
  | SiteDomainEvent
  | PreviewEvent;

/** What a preview's publisher says about it (the pull request, usually): every field optional. */
export type PreviewMeta = {
  readonly title?: string;
  readonly description?: string;
  readonly repo?: string;
};

/** Events of a preview, on its site's stream. */
export type PreviewEvent =
  | {
      readonly type: 'PreviewPublished';
      readonly data: {
        readonly siteId: number;
        readonly name: string;
        /** True when this publish made the preview (rather than replacing its content or description). */
        readonly created: boolean;
        readonly revision: RevisionInfo;
        readonly meta: PreviewMeta;
        readonly expiresAt: string;
        /** Paths of up to 20 added or changed HTML files against live, added first (what a pull-request comment links to). */
        readonly pages?: readonly string[];
      } & Partial<ChangeCounts>;
    }
  | { readonly type: 'PreviewRemoved'; readonly data: PreviewGone }
  | { readonly type: 'PreviewExpired'; readonly data: PreviewGone };

/** A preview that no longer exists, with what garbage collection needs of its revision. */
export type PreviewGone = {
  readonly siteId: number;
  readonly name: string;
  readonly revisionId: string;
  readonly manifest: string;
  readonly favicon?: string;
};

/** Custom domains (spec §15): the names the site answers at besides its own host. */
export type SiteDomainEvent =
  | { readonly type: 'DomainAttached'; readonly data: { readonly siteId: number; readonly domain: string } }
  | {
      readonly type: 'DomainDetached';
      readonly data: {
        readonly siteId: number;
        readonly domain: string;
        /**
         * Absent: an admin detached it. `purged`: the site was purged (recorded just before
         * `SitePurged`). `unfinished`: an attach that claimed the domain never recorded it here,
         * and its claim was taken over for another site (the domain was never attached).
         */
        readonly reason?: 'purged' | 'unfinished';
      };
    };

