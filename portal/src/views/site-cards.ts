/** Site cards (with lazy thumbnails) and the table view of the site list. */
import { api } from '../api.ts';
import { h } from '../dom.ts';
import { describeActor, formatBytes, formatTime, initials, sitePath } from '../format.ts';
import { dataTable } from '../table.ts';
import { when } from '../widgets.ts';
import { siteHref } from '../router.ts';
import type { Site } from '../types.ts';

/** Loads a thumbnail only when its card scrolls into view: 5,000 live iframes would sink any browser. */
const thumbObserver =
  typeof IntersectionObserver === 'undefined'
    ? undefined
    : new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue;
            thumbObserver!.unobserve(entry.target);
            fillThumb(entry.target as HTMLElement);
          }
        },
        { rootMargin: '200px' },
      );

/**
 * The initials are always drawn first, so a card is never blank: a preview image or the live
 * view covers them once it has loaded (a preview that fails to load leaves them showing).
 */
function fillThumb(el: HTMLElement): void {
  const { preview, url, title } = el.dataset;
  const shown = (node: HTMLElement) => () => node.classList.add('loaded');
  if (preview) {
    const img = h('img', { src: preview, alt: '', decoding: 'async' });
    img.addEventListener('load', shown(img));
    img.addEventListener('error', () => img.remove());
    el.append(img);
  } else if (url && framable(url)) {
    // A scaled live view: rendered at 3x the card width, shrunk, inert and sandboxed (no same-origin, no forms, no popups).
    const frame = h('iframe', {
      src: url,
      title: `Live preview of ${title ?? 'the site'}`,
      loading: 'lazy',
      sandbox: 'allow-scripts',
      tabindex: '-1',
      'aria-hidden': 'true',
      referrerpolicy: 'no-referrer',
    });
    frame.addEventListener('load', shown(frame));
    el.append(frame);
  }
}

/** Only a site's own host is framed: never the apex (the portal itself), never anything but http(s). */
function framable(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== location.hostname;
  } catch {
    return false;
  }
}

/** A stable colour per title from a small palette (classes, since the CSP allows no style attributes). */
function initialsThumb(title: string): HTMLElement {
  let hash = 0;
  for (const ch of title) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return h('span', { class: `initials tone-${hash % 6}`, 'aria-hidden': 'true' }, initials(title));
}

function thumb(site: Site): HTMLElement {
  const el = h('div', { class: 'thumb', 'data-title': site.title, 'data-preview': site.preview, 'data-url': site.url }, initialsThumb(site.title));
  if (thumbObserver) thumbObserver.observe(el);
  else fillThumb(el);
  return el;
}

export function favicon(site: Site): HTMLElement | null {
  // no favicon: the title's first letter, so rows still line up and nothing looks broken
  if (!site.has_favicon) return h('span', { class: 'favicon letter', 'aria-hidden': 'true' }, (site.title.trim()[0] ?? '?').toUpperCase());
  return h('img', { class: 'favicon', src: api.faviconUrl(sitePath(site)), alt: '', width: 16, height: 16, loading: 'lazy' });
}

export function hiddenBadge(site: Site): HTMLElement | null {
  return site.hidden ? h('span', { class: 'badge hidden-badge', title: 'Hidden: listed for admins only' }, 'Hidden') : null;
}

export function liveLink(site: Site, text = 'Open live site'): HTMLElement | null {
  if (!site.url) return null;
  return h('a', { class: 'live', href: site.url, target: '_blank', rel: 'noopener' }, text, h('span', { 'aria-hidden': 'true' }, ' ↗'), h('span', { class: 'sr-only' }, ' (opens in a new tab)'));
}

function tagChips(site: Site, onTag: (tag: string) => void): HTMLElement | null {
  if (!site.tags?.length) return null;
  return h(
    'ul',
    { class: 'tags', 'aria-label': 'Tags' },
    site.tags.map((t) => h('li', null, h('button', { type: 'button', class: 'tag', title: `Show sites tagged ${t}`, onclick: () => onTag(t) }, t))),
  );
}

/** "Updated 5 minutes ago by key “ci”": when the site last changed (a publish, a rollback, an edit) and who did it. */
export function lastChange(site: Site): HTMLElement {
  return h(
    'p',
    { class: 'updated' },
    'Updated ',
    when(site.updated_at),
    site.updated_by ? [' by ', h('span', { class: 'who' }, describeActor(site.updated_by, { short: true }))] : null,
  );
}

/**
 * The table's Date: the date the publisher gave the site, else the day it last changed, in
 * grey and said to be that, so the column is never empty and never passes one for the other.
 */
function dateCell(site: Site): Node | string {
  if (site.date) return site.date;
  return h('span', { class: 'muted fallback-date', title: 'No date given: the day the site last changed' }, formatTime(site.updated_at).slice(0, 10), h('span', { class: 'sr-only' }, ' (no date given: last changed)'));
}

export function siteCard(site: Site, onTag: (tag: string) => void): HTMLElement {
  const path = sitePath(site);
  return h(
    'article',
    { class: `card${site.hidden ? ' is-hidden' : ''}`, 'data-path': path },
    h('a', { href: siteHref(path), class: 'thumb-link', tabindex: '-1', 'aria-hidden': 'true' }, thumb(site)),
    h(
      'div',
      { class: 'card-body' },
      h('h3', null, favicon(site), h('a', { href: siteHref(path) }, site.title), hiddenBadge(site)),
      h('p', { class: 'path' }, path),
      site.description && h('p', { class: 'desc' }, site.description),
      tagChips(site, onTag),
      lastChange(site),
      h(
        'p',
        { class: 'meta' },
        site.date && h('span', null, site.date),
        h('span', null, formatBytes(site.size)),
        liveLink(site, 'Live'),
      ),
    ),
  );
}

export function siteTable(sites: Site[], onTag: (tag: string) => void): HTMLElement {
  return dataTable({
    caption: 'Sites',
    class: 'sites-table',
    columns: [{ label: 'Title' }, { label: 'Path', class: 'path' }, { label: 'Tags' }, { label: 'Date', class: 'nowrap' }, { label: 'Size', class: 'nowrap num' }, { label: 'Updated', class: 'nowrap' }, { label: 'Live' }],
    rows: sites.map((s) => ({
      attrs: { 'data-path': sitePath(s), class: s.hidden ? 'is-hidden' : null },
      cells: [
        h('span', { class: 'title-cell' }, favicon(s), h('a', { href: siteHref(sitePath(s)) }, s.title), hiddenBadge(s)),
        sitePath(s),
        tagChips(s, onTag),
        dateCell(s),
        formatBytes(s.size),
        [when(s.updated_at), s.updated_by ? h('span', { class: 'by muted' }, `by ${describeActor(s.updated_by, { short: true })}`) : null],
        liveLink(s, 'Open'),
      ],
    })),
  });
}
