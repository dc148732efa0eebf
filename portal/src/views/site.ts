/** A site's page: metadata, admin actions, and the Files, Compare, History and Storage tabs. */
import { api } from '../api.ts';
import { labeller, revisionNumbers } from '../changelog.ts';
import { h, replace, stateLine } from '../dom.ts';
import { describeActor, formatBytes, sitePath } from '../format.ts';
import { setQuery } from '../router.ts';
import type { ViewContext } from '../view-context.ts';
import type { SiteData, TabContext } from './tab-context.ts';
import type { Preview, Revision, Site, SiteEvent } from '../types.ts';
import { when } from '../widgets.ts';
import { breadcrumbs } from './group-tree.ts';
import { favicon, hiddenBadge, liveLink } from './site-cards.ts';
import { renderFilesTab } from './files.ts';
import { renderCompareTab } from './compare.ts';
import { renderHistoryTab } from './history.ts';
import { renderSiteStorageTab } from './storage.ts';
import { editMetadata, unpublishSite } from './site-actions.ts';
import { renderPreviews } from './previews.ts';
import { domainsValue } from './site-domains.ts';
import { openUploadDialog } from './upload.ts';

type Tab = 'files' | 'compare' | 'history' | 'storage';

function siteData(path: string, isAdmin: boolean, signal: AbortSignal, hasPreviews: boolean): SiteData {
  let revisions: Promise<Revision[]> | undefined;
  let previews: Promise<Preview[]> | undefined;
  let events: Promise<SiteEvent[] | undefined> | undefined;
  let label: Promise<(id: string) => string> | undefined;
  const data: SiteData = {
    revisions: () => (revisions ??= api.revisions(path, signal).then((r) => r.revisions)),
    events: () =>
      (events ??= isAdmin
        ? api.events(path, signal).then(
            (r) => r.events,
            (err) => {
              events = undefined; // a later tab may try again
              throw err;
            },
          )
        : Promise.resolve(undefined)),
    previews: () =>
      (previews ??= hasPreviews
        ? api.previews(path, signal).then(
            (r) => r.previews,
            () => [],
          )
        : Promise.resolve([])),
    // Labels never fail: without the history, a revision is named by its publish time.
    label: () =>
      (label ??= data.revisions().then((revs) => {
        const kept = revs.map((r) => r.id);
        return data.events().then((e) => labeller(revisionNumbers(revs, e), kept), () => labeller(revisionNumbers(revs), kept));
      })),
    refresh: () => {
      revisions = events = label = previews = undefined;
    },
  };
  return data;
}

const TAB_PARAMS = ['rev', 'file', 'from', 'to', 'diff'];

export async function renderSite(ctx: ViewContext, path: string): Promise<void> {
  const { me, main, signal } = ctx;
  replace(main, stateLine('Loading site…'));
  const site = await api.site(path, signal);
  document.title = `${site.title} · Sites`;
  const data = siteData(path, me.is_admin, signal, site.previews !== 0);
  const reload = () => {
    if (!signal.aborted) void renderSite(ctx, path);
  };
  const groupHref = (g: string) => (g ? `/?group=${encodeURIComponent(g)}` : '/');

  const tabs: { id: Tab; label: string }[] = [
    { id: 'files', label: 'Files' },
    { id: 'compare', label: 'Compare' },
    ...(me.is_admin ? [{ id: 'history' as Tab, label: 'History' }] : []),
    { id: 'storage', label: 'Storage' },
  ];
  const tabFromUrl = (): Tab => {
    const t = new URLSearchParams(location.search).get('tab');
    return tabs.find((x) => x.id === t)?.id ?? 'files';
  };
  let tab: Tab = tabFromUrl();
  let tabCtl: AbortController | undefined;
  signal.addEventListener('abort', () => tabCtl?.abort());

  const panel = h('div', { class: 'tab-panel', role: 'tabpanel', id: 'site-tabpanel', tabindex: '0' });
  const tabButtons = tabs.map((t) =>
    h('button', { type: 'button', role: 'tab', id: `tab-${t.id}`, 'aria-controls': 'site-tabpanel', onclick: () => choose(t.id) }, t.label),
  );
  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Site sections' }, tabButtons);
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  tablist.addEventListener('keydown', (e) => {
    const i = tabs.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : -99;
    if (next === -99) return;
    const j = (next + tabs.length) % tabs.length;
    choose(tabs[j].id);
    tabButtons[j].focus();
  });

  /** A tab chosen by the person: its own parameters start empty. */
  function choose(t: Tab): void {
    data.refresh();
    setQuery({ tab: t === 'files' ? '' : t, ...Object.fromEntries(TAB_PARAMS.map((p) => [p, ''])) });
    show(t);
  }

  /** Draws a tab from the current URL (its parameters say which revision, file or diff). */
  function show(t: Tab): void {
    tab = t;
    tabs.forEach((x, i) => {
      const on = x.id === t;
      tabButtons[i].setAttribute('aria-selected', String(on));
      tabButtons[i].tabIndex = on ? 0 : -1;
    });
    panel.setAttribute('aria-labelledby', `tab-${t}`);
    tabCtl?.abort();
    tabCtl = new AbortController();
    const tabCtx: TabContext = { ...ctx, signal: tabCtl.signal, panel, site, reload, data };
    switch (t) {
      case 'files':
        return void renderFilesTab(tabCtx);
      case 'compare':
        return void renderCompareTab(tabCtx);
      case 'history':
        return void renderHistoryTab(tabCtx);
      case 'storage':
        return void renderSiteStorageTab(tabCtx);
    }
  }

  // Links within the page (a change in History, "Compare with current") and back/forward
  // only redraw the tab; another page or another site is a new view.
  ctx.stay((r) => {
    if (r.name !== 'site' || r.path !== path) return false;
    show(tabFromUrl());
    // from far down a long changelog, the change opened starts at the top of the tab
    if (panel.getBoundingClientRect().top < 0) panel.scrollIntoView({ block: 'start' });
    return true;
  });

  const actions = me.is_admin
    ? h(
        'div',
        { class: 'actions', role: 'group', 'aria-label': 'Admin actions' },
        h('button', { type: 'button', onclick: () => openUploadDialog({ mode: 'replace', site, onDone: reload }) }, 'Upload new version'),
        h('button', { type: 'button', onclick: () => void editMetadata(site, reload) }, 'Edit metadata'),
        h('button', { type: 'button', class: 'danger', onclick: () => void unpublishSite(site) }, 'Unpublish'),
      )
    : null;

  // Previews stand beside the live site, so they are shown with it rather than in a tab.
  const previewsBox = h('div', { class: 'previews-box' });
  replace(
    main,
    breadcrumbs(site.group, groupHref, site.slug),
    h('div', { class: 'page-head site-head' }, h('h1', null, favicon(site), site.title, hiddenBadge(site)), liveLink(site)),
    actions,
    metadata(site, domainsValue(site, me.is_admin, reload)),
    previewsBox,
    tablist,
    panel,
  );
  if (site.previews !== 0) void renderPreviews(previewsBox, { site, me, signal, onChange: reload });
  show(tab);
}

function metadata(site: Site, domains: HTMLElement | null): HTMLElement {
  const row = (term: string, value: Node | string | null | undefined) =>
    value === undefined || value === null || value === '' ? null : [h('dt', null, term), h('dd', null, value)];
  return h(
    'dl',
    { class: 'meta-list' },
    row('Path', h('code', null, sitePath(site))),
    row('Live URL', site.url ? h('a', { href: site.url, target: '_blank', rel: 'noopener' }, site.url) : undefined),
    row('Custom domains', domains),
    row('Description', site.description),
    row('Date', site.date),
    row('Tags', site.tags?.length ? site.tags.join(', ') : undefined),
    row('Repository', site.repo ? (/^https?:\/\//.test(site.repo) ? h('a', { href: site.repo, target: '_blank', rel: 'noopener' }, site.repo) : site.repo) : undefined),
    row('Size', formatBytes(site.size)),
    row('Visibility', site.hidden ? 'Hidden (listed for admins only)' : 'Listed'),
    row('Created', when(site.created_at)),
    row('Updated', h('span', null, when(site.updated_at), site.updated_by ? ` by ${describeActor(site.updated_by)}` : '')),
    row('Site id', String(site.id)),
  );
}
