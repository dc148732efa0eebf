/** The History tab (admins): the site's audit trail, who did what and when. */
import { api, describeError } from '../api.ts';
import { h, replace, stateLine } from '../dom.ts';
import { formatBytes, formatTime, plural, sitePath } from '../format.ts';
import type { ViewContext } from '../main.ts';
import type { Site, SiteEvent } from '../types.ts';

const WORDS: Record<string, string> = {
  SitePublished: 'Published',
  SiteArchived: 'Archived the live revision',
  SiteRolledBack: 'Rolled back',
  SiteQuarantined: 'Unpublished (moved to Trash)',
  SiteRestored: 'Restored from Trash',
  SitePurged: 'Purged',
  SitePatched: 'Edited metadata',
  RevisionDropped: 'Dropped an old revision',
};

/** Actors are `{kind, name, id?}` in event metadata; older or other shapes are shown as given. */
export function describeActor(actor: unknown): string {
  if (typeof actor === 'string') return actor;
  if (actor && typeof actor === 'object') {
    const a = actor as { kind?: string; name?: string; id?: unknown; user?: string };
    switch (a.kind) {
      case 'user':
        return `${a.name} (user)`;
      case 'key':
        return `key #${a.id} “${a.name}”`;
      case 'connection':
        return `MCP connection ${a.name}${a.user ? ` approved by ${a.user}` : ''}`;
      case 'system':
        return `system (${a.name})`;
    }
    return JSON.stringify(actor);
  }
  return 'unknown';
}

function details(e: SiteEvent): string {
  const d = e.data ?? {};
  const rev = (k: string) => (typeof d[k] === 'string' ? String(d[k]) : undefined);
  switch (e.type) {
    case 'SitePublished': {
      const r = (d.revision ?? {}) as { id?: string; files?: number; size?: number };
      return [d.created === true && 'new site', r.id && `revision ${r.id}`, typeof r.files === 'number' && plural(r.files, 'file'), typeof r.size === 'number' && formatBytes(r.size)]
        .filter(Boolean)
        .join(', ');
    }
    case 'SitePatched': {
      const m = (d.meta ?? {}) as { title?: string; hidden?: boolean };
      return [m.title && `title “${m.title}”`, m.hidden && 'hidden'].filter(Boolean).join(', ');
    }
    case 'SiteRolledBack':
      return `to ${rev('revisionId')}${rev('previousRevisionId') ? ` (was ${rev('previousRevisionId')})` : ''}`;
    case 'SiteArchived':
    case 'RevisionDropped':
      return rev('revisionId') ?? '';
    default:
      return '';
  }
}

export async function renderHistoryTab(ctx: ViewContext & { panel: HTMLElement; site: Site }): Promise<void> {
  const { panel, site, signal } = ctx;
  replace(panel, stateLine('Loading history…'));
  let events: SiteEvent[];
  try {
    events = (await api.events(sitePath(site), signal)).events;
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(panel, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return;
  }
  if (events.length === 0) {
    replace(panel, stateLine('No events recorded for this site.'));
    return;
  }
  replace(
    panel,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'history-table' },
        h('caption', { class: 'sr-only' }, 'Site history, newest first'),
        h('thead', null, h('tr', null, ['When', 'What', 'Who', 'Details'].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          null,
          [...events].reverse().map((e) =>
            h('tr', { 'data-type': e.type }, h('td', { class: 'nowrap' }, h('time', { datetime: e.at }, formatTime(e.at, { seconds: true }))), h('td', null, WORDS[e.type] ?? e.type), h('td', null, describeActor(e.actor)), h('td', { class: 'mono' }, details(e))),
          ),
        ),
      ),
    ),
  );
}
