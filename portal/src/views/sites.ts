/** The site list: search as you type, tag filter, sort, group tree, paging, cards or table. */
import { api, describeError } from '../api.ts';
import { h, replace, stateLine } from '../dom.ts';
import { plural } from '../format.ts';
import { setQuery } from '../router.ts';
import type { ViewContext } from '../view-context.ts';
import type { SiteList } from '../types.ts';
import { breadcrumbs, collectTags, groupTree } from './group-tree.ts';
import { siteCard, siteTable } from './site-cards.ts';
import { firstSiteGuide } from './first-site.ts';
import { openUploadDialog } from './upload.ts';

const PAGE_SIZE = 48;
const DEBOUNCE_MS = 250;

type ListState = { q: string; tag: string; group: string; sort: string; view: 'cards' | 'table'; page: number };

function readState(): ListState {
  const p = new URLSearchParams(location.search);
  const sort = p.get('sort') ?? 'date';
  return {
    q: p.get('q') ?? '',
    tag: p.get('tag') ?? '',
    group: p.get('group') ?? '',
    sort: ['date', 'title', 'slug'].includes(sort) ? sort : 'date',
    view: p.get('view') === 'table' ? 'table' : 'cards',
    page: Math.max(0, Number.parseInt(p.get('page') ?? '1', 10) - 1 || 0),
  };
}

/** The portal URL of the list with this state (defaults left out). */
function hrefOf(s: ListState): string {
  const p = new URLSearchParams();
  if (s.q) p.set('q', s.q);
  if (s.tag) p.set('tag', s.tag);
  if (s.group) p.set('group', s.group);
  if (s.sort !== 'date') p.set('sort', s.sort);
  if (s.view !== 'cards') p.set('view', s.view);
  if (s.page > 0) p.set('page', String(s.page + 1));
  const qs = p.toString();
  return qs ? `/?${qs}` : '/';
}

export async function renderSites(ctx: ViewContext): Promise<void> {
  const { me, main, signal } = ctx;
  const state = readState();
  document.title = 'Sites';
  let inflight: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  signal.addEventListener('abort', () => {
    inflight?.abort();
    clearTimeout(timer);
  });

  const search = h('input', { id: 'site-search', type: 'search', value: state.q, placeholder: 'Title, path, tag…', autocomplete: 'off' });
  const tagSelect = h('select', { id: 'site-tag' }, h('option', { value: '' }, 'All tags'));
  const sortSelect = h(
    'select',
    { id: 'site-sort' },
    ['date', 'title', 'slug'].map((v) => h('option', { value: v, selected: state.sort === v }, { date: 'Newest first', title: 'Title A–Z', slug: 'Slug A–Z' }[v]!)),
  );
  const viewBtn = (view: ListState['view'], label: string) =>
    h('button', { type: 'button', 'aria-pressed': String(state.view === view), 'data-view': view, onclick: () => setView(view) }, label);
  const cardsBtn = viewBtn('cards', 'Cards');
  const tableBtn = viewBtn('table', 'Table');
  const summary = h('p', { class: 'summary', role: 'status', 'aria-live': 'polite' });
  const results = h('div', { class: 'results', id: 'results' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const sidebar = h('details', { class: 'sidebar', open: window.matchMedia('(min-width: 800px)').matches }, h('summary', null, 'Groups'));
  const crumbs = h('div', { class: 'crumbs' });

  const sync = () => setQuery({ q: state.q, tag: state.tag, group: state.group, sort: state.sort === 'date' ? '' : state.sort, view: state.view === 'cards' ? '' : state.view, page: state.page > 0 ? String(state.page + 1) : '' });
  const groupHref = (group: string) => hrefOf({ ...state, group, page: 0 });

  function setView(view: ListState['view']): void {
    state.view = view;
    cardsBtn.setAttribute('aria-pressed', String(view === 'cards'));
    tableBtn.setAttribute('aria-pressed', String(view === 'table'));
    sync();
    if (last) drawResults(last);
  }

  function setTag(tag: string): void {
    state.tag = tag;
    state.page = 0;
    sync();
    void load();
  }

  let last: SiteList | undefined;

  function drawResults(list: SiteList): void {
    const from = state.page * PAGE_SIZE;
    if (list.count === 0) {
      summary.textContent = '';
      const filtered = state.q || state.tag || state.group;
      replace(
        results,
        filtered
          ? stateLine('No sites match these filters. Clear the search, choose All tags, or pick All sites in the groups list.')
          : me.is_admin
            ? firstSiteGuide(location.origin, me.base_domain)
            : stateLine('No sites have been published yet. They appear here as soon as someone publishes one.'),
      );
    } else {
      summary.textContent = `${plural(list.count, 'site')}${list.sites.length ? ` · showing ${from + 1}–${from + list.sites.length}` : ''}`;
      if (list.sites.length === 0) replace(results, stateLine('This page is past the end of the list.'));
      else if (state.view === 'table') replace(results, siteTable(list.sites, setTag));
      else replace(results, h('div', { class: 'cards' }, list.sites.map((s) => siteCard(s, setTag))));
    }
    const pages = Math.max(1, Math.ceil(list.count / PAGE_SIZE));
    const go = (page: number) => () => {
      state.page = page;
      sync();
      void load();
      results.scrollIntoView?.({ block: 'start' });
    };
    replace(
      pager,
      h('button', { type: 'button', disabled: state.page === 0, onclick: go(state.page - 1) }, '← Previous'),
      h('span', null, `Page ${state.page + 1} of ${pages}`),
      h('button', { type: 'button', disabled: state.page + 1 >= pages, onclick: go(state.page + 1) }, 'Next →'),
    );
    pager.hidden = pages <= 1;
  }

  function drawFilters(list: SiteList): void {
    const tags = [...collectTags(list.tree)];
    if (state.tag && !tags.includes(state.tag)) tags.push(state.tag);
    tags.sort();
    replace(tagSelect, h('option', { value: '' }, 'All tags'), tags.map((t) => h('option', { value: t, selected: t === state.tag }, t)));
    replace(sidebar, h('summary', null, 'Groups'), groupTree(list.tree, state.group, groupHref));
    replace(crumbs, state.group ? breadcrumbs(state.group, groupHref) : null);
  }

  async function load(): Promise<void> {
    inflight?.abort();
    const ctl = new AbortController();
    inflight = ctl;
    results.setAttribute('aria-busy', 'true');
    if (!last) replace(results, stateLine('Loading sites…'));
    try {
      const list = await api.listSites(
        { q: state.q.trim(), tag: state.tag, group: state.group, sort: state.sort, hidden: me.is_admin, limit: PAGE_SIZE, offset: state.page * PAGE_SIZE },
        ctl.signal,
      );
      if (ctl.signal.aborted) return;
      last = list;
      drawFilters(list);
      drawResults(list);
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      summary.textContent = '';
      replace(results, h('p', { class: 'state error', role: 'alert' }, describeError(err)), h('button', { type: 'button', onclick: () => void load() }, 'Retry'));
    } finally {
      if (inflight === ctl) results.removeAttribute('aria-busy');
    }
  }

  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.q = search.value;
      state.page = 0;
      sync();
      void load();
    }, DEBOUNCE_MS);
  });
  tagSelect.addEventListener('change', () => setTag(tagSelect.value));
  sortSelect.addEventListener('change', () => {
    state.sort = sortSelect.value;
    state.page = 0;
    sync();
    void load();
  });

  replace(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', null, 'Sites'),
      me.is_admin &&
        h('button', { type: 'button', class: 'primary', onclick: () => openUploadDialog({ mode: 'new', defaultGroup: state.group }) }, 'Publish a site'),
    ),
    h(
      'form',
      { class: 'toolbar', role: 'search', onsubmit: (e: Event) => e.preventDefault() },
      h('p', { class: 'field grow' }, h('label', { for: 'site-search' }, 'Search'), search),
      h('p', { class: 'field' }, h('label', { for: 'site-tag' }, 'Tag'), tagSelect),
      h('p', { class: 'field' }, h('label', { for: 'site-sort' }, 'Sort'), sortSelect),
      h('div', { class: 'field' }, h('span', { class: 'label', id: 'view-label' }, 'View'), h('div', { class: 'segmented', role: 'group', 'aria-labelledby': 'view-label' }, cardsBtn, tableBtn)),
    ),
    h('div', { class: 'list-layout' }, sidebar, h('section', { class: 'list-main', 'aria-label': 'Site list' }, crumbs, summary, results, pager)),
  );
  await load();
}
