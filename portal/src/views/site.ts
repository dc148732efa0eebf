/** A site's page: metadata, admin actions, and the Files and History tabs. */
import { api } from '../api.ts';
import { h, replace, stateLine } from '../dom.ts';
import { formatBytes, formatTime, sitePath } from '../format.ts';
import { setQuery } from '../router.ts';
import type { ViewContext } from '../main.ts';
import type { Site } from '../types.ts';
import { breadcrumbs } from './group-tree.ts';
import { favicon, hiddenBadge, liveLink } from './site-cards.ts';
import { renderFilesTab } from './files.ts';
import { renderHistoryTab } from './history.ts';
import { editMetadata, unpublishSite } from './site-actions.ts';
import { openUploadDialog } from './upload.ts';

type Tab = 'files' | 'history';

export async function renderSite(ctx: ViewContext, path: string): Promise<void> {
  const { me, main, signal } = ctx;
  replace(main, stateLine('Loading site…'));
  const site = await api.site(path, signal);
  document.title = `${site.title} · Sites`;
  const reload = () => {
    if (!signal.aborted) void renderSite(ctx, path);
  };
  const groupHref = (g: string) => (g ? `/?group=${encodeURIComponent(g)}` : '/');
  const params = new URLSearchParams(location.search);
  let tab: Tab = params.get('tab') === 'history' && me.is_admin ? 'history' : 'files';

  const tabs: { id: Tab; label: string }[] = [{ id: 'files', label: 'Files' }];
  if (me.is_admin) tabs.push({ id: 'history', label: 'History' });
  const panel = h('div', { class: 'tab-panel', role: 'tabpanel', id: 'site-tabpanel', tabindex: '0' });
  const tabButtons = tabs.map((t) =>
    h('button', { type: 'button', role: 'tab', id: `tab-${t.id}`, 'aria-controls': 'site-tabpanel', onclick: () => select(t.id) }, t.label),
  );
  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Site sections' }, tabButtons);
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  tablist.addEventListener('keydown', (e) => {
    const i = tabs.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : -99;
    if (next === -99) return;
    const j = (next + tabs.length) % tabs.length;
    select(tabs[j].id);
    tabButtons[j].focus();
  });

  function select(t: Tab): void {
    tab = t;
    tabs.forEach((x, i) => {
      const on = x.id === t;
      tabButtons[i].setAttribute('aria-selected', String(on));
      tabButtons[i].tabIndex = on ? 0 : -1;
    });
    panel.setAttribute('aria-labelledby', `tab-${t}`);
    setQuery({ tab: t === 'files' ? '' : t, rev: t === 'files' ? new URLSearchParams(location.search).get('rev') ?? '' : '', file: t === 'files' ? new URLSearchParams(location.search).get('file') ?? '' : '' });
    if (t === 'files') void renderFilesTab({ ...ctx, panel, site, reload });
    else void renderHistoryTab({ ...ctx, panel, site });
  }

  const actions = me.is_admin
    ? h(
        'div',
        { class: 'actions', role: 'group', 'aria-label': 'Admin actions' },
        h('button', { type: 'button', onclick: () => openUploadDialog({ mode: 'replace', site, onDone: reload }) }, 'Upload new version'),
        h('button', { type: 'button', onclick: () => void editMetadata(site, reload) }, 'Edit metadata'),
        h('button', { type: 'button', class: 'danger', onclick: () => void unpublishSite(site) }, 'Unpublish'),
      )
    : null;

  replace(
    main,
    breadcrumbs(site.group, groupHref, site.slug),
    h('div', { class: 'page-head site-head' }, h('h1', null, favicon(site), site.title, hiddenBadge(site)), liveLink(site)),
    actions,
    metadata(site),
    tablist,
    panel,
  );
  select(tab);
}

function metadata(site: Site): HTMLElement {
  const row = (term: string, value: Node | string | null | undefined) =>
    value === undefined || value === null || value === '' ? null : [h('dt', null, term), h('dd', null, value)];
  return h(
    'dl',
    { class: 'meta-list' },
    row('Path', h('code', null, sitePath(site))),
    row('Live URL', site.url ? h('a', { href: site.url, target: '_blank', rel: 'noopener' }, site.url) : undefined),
    row('Description', site.description),
    row('Date', site.date),
    row('Tags', site.tags?.length ? site.tags.join(', ') : undefined),
    row('Repository', site.repo ? (/^https?:\/\//.test(site.repo) ? h('a', { href: site.repo, target: '_blank', rel: 'noopener' }, site.repo) : site.repo) : undefined),
    row('Size', formatBytes(site.size)),
    row('Visibility', site.hidden ? 'Hidden (listed for admins only)' : 'Listed'),
    row('Created', formatTime(site.created_at)),
    row('Updated', formatTime(site.updated_at)),
    row('Site id', String(site.id)),
  );
}
