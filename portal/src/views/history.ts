/**
 * The History tab (admins): the site's audit trail read as a changelog, newest first and
 * grouped by day. Each publish or rollback says who, when, and what changed; a click opens
 * the diff of that change (`?tab=history&diff=A..B`); an entry whose revision is still kept
 * and not live offers to make it live again (with versioning on, after a confirmation).
 */
import { describeError } from '../api.ts';
import { buildChangelog, groupByDay, type ChangelogEntry } from '../changelog.ts';
import { h, replace, stateLine } from '../dom.ts';
import { dayHeading, describeActor, sitePath } from '../format.ts';
import type { Preview, Revision, Site, SiteEvent } from '../types.ts';
import { changeSummary, permalink, revId, revTag, when } from '../widgets.ts';
import { renderDiff } from './diff.ts';
import { compareHref } from './files.ts';
import { previewRef } from './previews.ts';
import { rollbackTo } from './site-actions.ts';
import type { TabContext } from './tab-context.ts';

/** Entries drawn at first; "Show older changes" adds more (a busy site has thousands). */
const PAGE = 100;

const historyHref = (site: Site, diff?: string) => `/sites/${sitePath(site)}?tab=history${diff ? `&diff=${encodeURIComponent(diff)}` : ''}`;
const filesHref = (site: Site, rev: string) => `/sites/${sitePath(site)}?rev=${encodeURIComponent(rev)}`;

/**
 * What the entries are drawn against. `liveEntry`: the newest entry that made the live
 * revision live (an older publish of the same revision is not "live now"). `rollback`: how
 * to make a kept revision live again, absent when versioning is off (a rollback is refused then).
 */
type Known = {
  label: (id: string) => string;
  /** The site's previews now, by name (their content and address). */
  previews: Map<string, Preview>;
  kept: Set<string>;
  /** The permalink of each kept revision (spec §14). */
  urls: Map<string, string>;
  live?: string;
  liveEntry?: ChangelogEntry;
  rollback?: (id: string) => void;
};

type Change = Extract<ChangelogEntry, { kind: 'publish' | 'rollback' }>;
type PreviewEntry = Extract<ChangelogEntry, { kind: 'preview' }>;
const isChange = (e: ChangelogEntry): e is Change => e.kind === 'publish' || e.kind === 'rollback';

/**
 * Where a click on an entry leads: its diff when both revisions are still kept, the files of a
 * first publish; for a preview's publish that is still its content, what it changes against live.
 */
function target(e: ChangelogEntry, site: Site, k: Known): { href: string; text: string } | { missing: string } | undefined {
  if (e.kind === 'note') return undefined;
  if (e.kind === 'preview') {
    if (e.type !== 'PreviewPublished') return undefined;
    const now = k.previews.get(e.name);
    if (now && now.revision === e.revisionId) return { href: compareHref(site, 'current', previewRef(e.name)), text: 'See what it changes against live' };
    return { missing: now ? `Preview ${e.name} has been published again since` : `Preview ${e.name} is no longer online` };
  }
  if (e.fromId === undefined) return k.kept.has(e.id) ? { href: filesHref(site, e.id), text: 'Browse its files' } : { missing: `${k.label(e.id)} is no longer kept` };
  const gone = [e.fromId, e.id].filter((id) => !k.kept.has(id));
  if (gone.length) return { missing: `${gone.map(k.label).join(' and ')} ${gone.length === 1 ? 'is' : 'are'} no longer kept, so this change cannot be shown` };
  return { href: historyHref(site, `${e.fromId}..${e.id}`), text: 'See what changed' };
}

function headline(e: ChangelogEntry, k: Known): (Node | string)[] {
  switch (e.kind) {
    case 'publish':
      return [revTag(e.id, k.label(e.id), { live: e === k.liveEntry }), e.created ? ' Published, a new site' : ' Published'];
    case 'rollback':
      return [revTag(e.id, k.label(e.id), { live: e === k.liveEntry }), ` Live again: rolled back from ${k.label(e.fromId)}`];
    case 'note':
      return [e.revisionId ? revTag(e.revisionId, k.label(e.revisionId)) : '', e.revisionId ? ` ${e.text}` : e.text];
    case 'preview':
      return [h('span', { class: 'preview-tag', title: `Preview ${e.name}` }, e.name), ` ${previewText(e)}`];
  }
}

function previewText(e: PreviewEntry): string {
  switch (e.type) {
    case 'PreviewPublished':
      return e.created ? 'Preview published' : 'Preview updated';
    case 'PreviewRemoved':
      return 'Preview removed';
    case 'PreviewExpired':
      return 'Preview expired and was removed';
  }
}

/** The `data-type` of an entry: its event's type. */
function entryType(e: ChangelogEntry): string {
  return e.kind === 'note' || e.kind === 'preview' ? e.type : e.kind === 'publish' ? 'SitePublished' : 'SiteRolledBack';
}

function entryItem(e: ChangelogEntry, site: Site, k: Known): HTMLElement {
  const to = target(e, site, k);
  const head = h('span', { class: 'entry-title' }, headline(e, k));
  const li = h(
    'li',
    { class: `entry ${e.kind}${to && 'href' in to ? ' has-link' : ''}`, 'data-type': entryType(e), 'data-rev': isChange(e) ? e.id : null, 'data-preview': e.kind === 'preview' ? e.name : null },
    h(
      'div',
      { class: 'entry-head' },
      to && 'href' in to ? h('a', { class: 'entry-link', href: to.href, title: to.text }, head) : head,
      e === k.liveEntry ? h('span', { class: 'badge ok' }, 'Live now') : null,
      h('span', { class: 'entry-when' }, when(e.at)),
    ),
    h(
      'p',
      { class: 'entry-meta' },
      h('span', { class: 'who' }, 'by ', describeActor(e.actor)),
      isChange(e) || (e.kind === 'preview' && e.counts) ? [' · ', changeSummary(e), e.kind === 'preview' ? ' against live' : null] : null,
    ),
    e.kind === 'publish' && e.dropped.length
      ? h('p', { class: 'entry-note muted small' }, `No longer kept after this publish: ${e.dropped.map(k.label).join(', ')}`)
      : null,
    to && 'missing' in to ? h('p', { class: 'entry-note muted small' }, to.missing) : null,
    !isChange(e)
      ? null
      : h(
          'div',
          { class: 'entry-foot' },
          h('p', { class: 'entry-id muted small' }, revId(e.id), k.urls.has(e.id) ? [' · ', permalink(k.urls.get(e.id), k.label(e.id))] : null),
          k.rollback && k.kept.has(e.id) && e.id !== k.live
            ? h('button', { type: 'button', class: 'rollback', 'aria-label': `Make ${k.label(e.id)} live again`, onclick: () => k.rollback!(e.id) }, `Make ${k.label(e.id)} live`)
            : null,
        ),
  );
  // The whole entry opens its change, not only the title (buttons and selected text excepted).
  if (to && 'href' in to) {
    li.addEventListener('click', (ev) => {
      const t = ev.target as Element;
      if (t.closest('a, button') || getSelection()?.toString()) return;
      (li.querySelector('a.entry-link') as HTMLAnchorElement).click();
    });
  }
  return li;
}

export async function renderHistoryTab(ctx: TabContext): Promise<void> {
  const { panel, site, signal } = ctx;
  replace(panel, stateLine('Loading history…'));
  let events: SiteEvent[];
  let revisions: Revision[];
  let label: (id: string) => string;
  let previews: Preview[];
  try {
    [events, revisions, label, previews] = await Promise.all([ctx.data.events().then((e) => e ?? []), ctx.data.revisions(), ctx.data.label(), ctx.data.previews()]);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(panel, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return;
  }
  if (signal.aborted) return;
  const liveRev = revisions.find((r) => r.current);
  const rollback = (id: string) => {
    const rev = revisions.find((r) => r.id === id);
    if (rev) void rollbackTo(site, rev, liveRev, label, () => ctx.reload());
  };
  const known: Known = {
    label,
    previews: new Map(previews.map((p) => [p.name, p])),
    kept: new Set(revisions.map((r) => r.id)),
    urls: new Map(revisions.flatMap((r) => (r.url ? [[r.id, r.url] as const] : []))),
    live: liveRev?.id,
    rollback: ctx.me.is_admin && ctx.me.versioning_enabled ? rollback : undefined,
  };
  const entries = buildChangelog(events);
  known.liveEntry = entries.find((e) => isChange(e) && e.id === known.live);
  const diff = new URLSearchParams(location.search).get('diff');
  if (diff) return renderChange(ctx, diff, entries, known);
  if (entries.length === 0) {
    replace(panel, stateLine('Nothing has been recorded for this site yet.'));
    return;
  }

  const list = h('div', { class: 'changelog' });
  let shown = 0;
  const more = h('button', { type: 'button', class: 'more' }, 'Show older changes');
  const drawMore = () => {
    const next = entries.slice(shown, shown + PAGE);
    shown += next.length;
    for (const g of groupByDay(next)) {
      // a day split across two pages continues under the same heading
      const last = list.lastElementChild as HTMLElement | null;
      const ol = last?.dataset.day === g.day ? (last.querySelector('ol') as HTMLElement) : undefined;
      if (ol) ol.append(...g.entries.map((e) => entryItem(e, site, known)));
      else
        list.append(
          h(
            'section',
            { class: 'day', 'data-day': g.day, 'aria-label': dayHeading(g.day) },
            h('h3', null, dayHeading(g.day), h('span', { class: 'muted' }, ` ${g.day}`)),
            h('ol', null, g.entries.map((e) => entryItem(e, site, known))),
          ),
        );
    }
    more.hidden = shown >= entries.length;
  };
  more.addEventListener('click', drawMore);
  const publishes = entries.filter((e) => e.kind === 'publish').length;
  replace(
    panel,
    h('p', { class: 'muted small history-intro' }, `${publishes === 1 ? '1 publish' : `${publishes.toLocaleString('en')} publishes`} recorded, newest first. Select a change to see which files it added, changed or removed.`),
    list,
    more,
  );
  drawMore();
}

/** One change: who made it and when, then its diff against the revision it replaced. */
function renderChange(ctx: TabContext, diff: string, entries: ChangelogEntry[], k: Known): void {
  const { panel, site, signal } = ctx;
  const [from, to] = diff.split('..');
  const back = h('a', { class: 'back', href: historyHref(site) }, '← All changes');
  if (!from || !to) {
    replace(panel, back, h('p', { class: 'state error', role: 'alert' }, `“${diff}” names no change: it should be two revision ids joined by two dots.`));
    return;
  }
  const entry = entries.find((e): e is Change => isChange(e) && e.id === to && e.fromId === from);
  const box = h('div', { class: 'diff', 'aria-live': 'polite' });
  replace(
    panel,
    back,
    h(
      'div',
      { class: 'change-head' },
      entry
        ? [
            h('h2', null, headline(entry, k), ' ', h('span', { class: 'muted entry-when' }, when(entry.at))),
            h('p', { class: 'entry-meta' }, h('span', { class: 'who' }, 'by ', describeActor(entry.actor)), ' · ', changeSummary(entry)),
          ]
        : h('h2', null, `What changed from ${k.label(from)} to ${k.label(to)}`),
      h(
        'p',
        { class: 'muted small' },
        `Compared with ${k.label(from)}, the revision it replaced. `,
        h('a', { href: compareHref(site, from, to) }, 'Compare with another revision'),
      ),
      h('p', { class: 'entry-id muted small' }, revId(to), k.urls.has(to) ? [' · ', permalink(k.urls.get(to), k.label(to))] : null),
    ),
    box,
  );
  void renderDiff(box, { site, from, to, label: k.label, signal });
}
