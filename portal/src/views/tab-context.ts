import type { Preview, Revision, Site, SiteEvent } from '../types.ts';
import type { ViewContext } from '../view-context.ts';

// Apart from site.ts, which imports every tab: a tab importing site.ts would close a cycle.
/** What the tabs share, each fetched once per visit of the page: revisions, the audit events (admins) and the revision labels. */
export type SiteData = {
  revisions(): Promise<Revision[]>;
  /** The audit events, oldest first; undefined for viewers (the history is admin-only). */
  events(): Promise<SiteEvent[] | undefined>;
  /** The site's previews now (spec §14); empty when it has none, or when they cannot be read (they are shown above the tabs, with the error). */
  previews(): Promise<Preview[]>;
  /** The short label of a revision (`v7`), the same in every tab. */
  label(): Promise<(id: string) => string>;
  /** Forgets what was fetched: a tab chosen anew shows what others changed meanwhile. */
  refresh(): void;
};

/** What a tab receives: the page's context with its own panel and a signal aborted when another tab is chosen. */
export type TabContext = ViewContext & { panel: HTMLElement; site: Site; reload: () => void; data: SiteData };
