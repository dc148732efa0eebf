/**
 * Storage as a picture. On a site's page: every kept revision's size against what the shared
 * store really holds for them (files identical across revisions are stored once, under their
 * content hash), and publishes per day. On /storage (admins): the same for the whole service.
 */
import { api, describeError } from '../api.ts';
import { publishesPerDay } from '../changelog.ts';
import { bar, columns } from '../charts.ts';
import { h, replace, stateLine } from '../dom.ts';
import { dayHeading, formatBytes, formatPercent, plural, sitePath } from '../format.ts';
import type { ViewContext } from '../view-context.ts';
import type { Revision, SiteEvent, SiteStorage } from '../types.ts';
import { revTag, when } from '../widgets.ts';
import type { TabContext } from './tab-context.ts';

const ACTIVITY_DAYS = 30;

function stat(value: string, label: string, cls = ''): HTMLElement {
  return h('div', { class: `stat ${cls}`.trim() }, h('span', { class: 'stat-value' }, value), h('span', { class: 'stat-label' }, label));
}

/** The headline numbers: kept, their sizes added up, what is stored, what that saves. */
function stats(logical: number, stored: number, first: HTMLElement[]): HTMLElement {
  const saved = Math.max(0, logical - stored);
  return h(
    'div',
    { class: 'stats' },
    first,
    stat(formatBytes(logical), 'sizes added up'),
    stat(formatBytes(stored), 'really stored'),
    stat(formatBytes(saved), `saved by storing each file once (${formatPercent(saved, logical)})`, 'saved'),
  );
}

type Piece = { value: number; class: string; title: string };

/** Two bars on one scale: the revisions' sizes added up (one segment each), and what the store holds. */
function logicalVsStored(logical: Piece[], stored: number, caption: string): HTMLElement {
  const total = logical.reduce((n, p) => n + p.value, 0);
  const max = Math.max(total, stored, 1);
  const row = (name: string, value: number, svg: SVGSVGElement, cls: string) =>
    h('div', { class: `bar-row ${cls}` }, h('span', { class: 'bar-label' }, name), h('span', { class: 'bar-box' }, svg), h('span', { class: 'bar-value' }, formatBytes(value)));
  return h(
    'figure',
    { class: 'chart logical-vs-stored' },
    h('figcaption', null, caption),
    row('Added up', total, bar(logical, max, `Sizes added up: ${formatBytes(total)}`), 'logical'),
    row(
      'Stored',
      stored,
      bar(
        [
          { value: stored, class: 'stored', title: `Stored: ${formatBytes(stored)}` },
          { value: Math.max(0, total - stored), class: 'saved-gap', title: `Saved: ${formatBytes(total - stored)}`, label: 'saved' },
        ],
        max,
        `Really stored: ${formatBytes(stored)}, saving ${formatBytes(Math.max(0, total - stored))}`,
      ),
      'stored',
    ),
  );
}

function revisionBars(revisions: Revision[], label: (id: string) => string): HTMLElement {
  const max = Math.max(1, ...revisions.map((r) => r.size));
  return h(
    'figure',
    { class: 'chart revision-bars' },
    h('figcaption', null, 'Each kept revision, newest first'),
    h(
      'ol',
      null,
      revisions.map((r) =>
        h(
          'li',
          { class: 'bar-row', 'data-rev': r.id },
          h('span', { class: 'bar-label' }, revTag(r.id, label(r.id), { live: r.current }), r.current ? h('span', { class: 'badge ok' }, 'Live') : null),
          h('span', { class: 'bar-box' }, bar([{ value: r.size, class: r.current ? 'live' : 'seg-a', title: `${label(r.id)}: ${formatBytes(r.size)}, ${plural(r.files, 'file')}` }], max, `${label(r.id)}: ${formatBytes(r.size)}`)),
          h('span', { class: 'bar-value' }, formatBytes(r.size), h('span', { class: 'muted' }, ` · ${plural(r.files, 'file')} · `), when(r.created_at)),
        ),
      ),
    ),
  );
}

function activity(events: SiteEvent[]): HTMLElement {
  const days = publishesPerDay(events, ACTIVITY_DAYS);
  const total = days.reduce((n, d) => n + d.count, 0);
  const active = days.filter((d) => d.count > 0).length;
  const max = Math.max(0, ...days.map((d) => d.count));
  const words = total === 0 ? `No publishes in the last ${ACTIVITY_DAYS} days.` : `${plural(total, 'publish', 'publishes')} in the last ${ACTIVITY_DAYS} days, on ${plural(active, 'day')}.`;
  return h(
    'figure',
    { class: 'chart activity' },
    h('figcaption', null, 'Publishes per day'),
    h('p', { class: 'muted small' }, words),
    h(
      'div',
      { class: 'columns-box' },
      h('span', { class: 'y-max muted small', 'aria-hidden': 'true' }, max > 0 ? String(max) : ''),
      columns(
        days.map((d) => ({ value: d.count, title: `${dayHeading(d.day)} (${d.day}): ${plural(d.count, 'publish', 'publishes')}`, class: d.count ? 'on' : '' })),
        `Publishes per day over the last ${ACTIVITY_DAYS} days: ${words}`,
      ),
    ),
    h('div', { class: 'x-axis muted small', 'aria-hidden': 'true' }, h('span', null, days[0].day), h('span', null, 'Today')),
  );
}

export async function renderSiteStorageTab(ctx: TabContext): Promise<void> {
  const { panel, site, me, signal } = ctx;
  replace(panel, stateLine('Loading storage…'));
  let storage: SiteStorage;
  let label: (id: string) => string;
  let events: SiteEvent[] | undefined;
  try {
    [storage, label, events] = await Promise.all([
      api.siteStorage(sitePath(site), signal),
      ctx.data.label(),
      me.is_admin ? ctx.data.events().catch(() => undefined) : Promise.resolve(undefined),
    ]);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(panel, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return;
  }
  if (signal.aborted) return;
  const revisions = [...storage.revisions].sort((a, b) => (a.id < b.id ? 1 : -1));
  // Alternate shades tell neighbouring revisions apart; the live one stands out.
  const pieces = revisions.map((r, i) => ({
    value: r.size,
    class: r.current ? 'live' : i % 2 ? 'seg-b' : 'seg-a',
    title: `${label(r.id)}${r.current ? ' (live)' : ''}: ${formatBytes(r.size)}`,
    label: label(r.id).startsWith('v') ? label(r.id) : undefined,
  }));
  replace(
    panel,
    stats(storage.logical_bytes, storage.stored_bytes, [stat(String(revisions.length), revisions.length === 1 ? 'revision kept' : 'revisions kept')]),
    logicalVsStored(pieces, storage.stored_bytes, `The kept revisions' sizes added up, against what the store really holds for them`),
    h(
      'p',
      { class: 'muted small chart-note' },
      revisions.length > 1
        ? 'A file that is the same in several revisions, or in other sites, is stored once under its content hash, so keeping old revisions costs only what changed.'
        : me.versioning_enabled
          ? 'Each new publish keeps the revision it replaces; files it shares with them are stored only once.'
          : 'Versioning is off on this service, so only the live revision is kept.',
    ),
    revisionBars(revisions, label),
    events ? activity(events) : null,
  );
}

export async function renderServiceStorage(ctx: ViewContext): Promise<void> {
  const { main, signal } = ctx;
  document.title = 'Storage · Sites';
  const body = h('div', { class: 'storage-body' }, stateLine('Loading storage…'));
  replace(
    main,
    h('div', { class: 'page-head' }, h('h1', null, 'Storage')),
    h('p', { class: 'muted' }, 'What all kept revisions of all sites add up to, against what the shared file store really holds: identical files are stored once, whichever site or revision they belong to.'),
    body,
  );
  try {
    const s = await api.storage(signal);
    if (s.revisions === 0) {
      replace(body, stateLine('Nothing is stored yet. Publish a site (on the Sites page, or from CI with an API key) and its revisions show up here.'));
      return;
    }
    replace(
      body,
      h('div', { class: 'panel' },
        stats(s.logical_bytes, s.stored_bytes, [stat(s.sites.toLocaleString('en'), s.sites === 1 ? 'site' : 'sites'), stat(s.revisions.toLocaleString('en'), s.revisions === 1 ? 'revision kept' : 'revisions kept')]),
        logicalVsStored([{ value: s.logical_bytes, class: 'seg-b', title: `All kept revisions added up: ${formatBytes(s.logical_bytes)}` }], s.stored_bytes, 'All kept revisions added up, against what the store really holds'),
        h('p', { class: 'muted small chart-note' }, 'Each site’s own picture, revision by revision, is in the Storage tab of its page.'),
      ),
    );
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(body, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
  }
}
