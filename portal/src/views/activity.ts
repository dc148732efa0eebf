/**
 * Activity (admins): everything that happened on the service, newest first, by day. The
 * filters are chips: each one set shows as a chip that removes it; an entry's site, actor
 * and type are buttons that add that filter. Entries link to their site, revision or diff.
 * The URL holds the filters, so a filtered view can be shared; the export downloads the same
 * events as JSON lines (oldest first, no page limit).
 */
import { api, describeError } from '../api.ts';
import { h, replace, stateLine, type Child } from '../dom.ts';
import { dayHeading, describeActor, formatBytes, formatTime, localDay, plural } from '../format.ts';
import type { ViewContext } from '../view-context.ts';
import { navigate } from '../router.ts';
import type { Activity, ActivityFilters } from '../types.ts';
import { when } from '../widgets.ts';

const FILTERS = ['type', 'site', 'actor', 'since', 'until'] as const;
type Filter = (typeof FILTERS)[number];

/** Quick type filters: what admins ask for most, in words. */
const QUICK: readonly { label: string; type: string }[] = [
  { label: 'Publishes', type: 'SitePublished' },
  { label: 'Rollbacks', type: 'SiteRolledBack' },
  { label: 'Unpublished & purged', type: 'SiteQuarantined,SitePurged' },
  { label: 'Keys', type: 'KeyIssued,KeyRevoked' },
  { label: 'Connections', type: 'ConnectionGranted,ConnectionRevoked' },
  { label: 'Webhooks', type: 'WebhookCreated,WebhookDeleted' },
];

/** An event in words: "published", "rolled back"… (the type itself is shown on hover). */
const VERBS: Record<string, string> = {
  SitePublished: 'published',
  SiteArchived: 'archived a revision of',
  RevisionDropped: 'dropped an old revision of',
  SiteRolledBack: 'rolled back',
  SiteQuarantined: 'unpublished',
  SiteRestored: 'restored',
  SitePurged: 'purged',
  SitePatched: 'edited the details of',
  PreviewPublished: 'published a preview of',
  PreviewRemoved: 'removed a preview of',
  PreviewExpired: 'expired a preview of',
  DomainAttached: 'attached a custom domain to',
  DomainDetached: 'detached a custom domain from',
  KeyIssued: 'created a key',
  KeyRevoked: 'revoked a key',
  KeyUsed: 'used a key',
  ConnectionGranted: 'approved an MCP client',
  ConnectionCodeRedeemed: 'connected an MCP client',
  ConnectionRefreshed: 'refreshed an MCP connection',
  ConnectionRevoked: 'revoked an MCP connection',
  ConnectionUsed: 'used an MCP connection',
  ClientRegistered: 'registered an OAuth client',
  ClientUsed: 'first used an OAuth client',
  ClientRegistrationExpired: 'expired an unused OAuth client',
  WebhookCreated: 'created a webhook',
  WebhookDeleted: 'deleted a webhook',
};

const LABELS: Record<Filter, string> = { type: 'Type', site: 'Site', actor: 'By', since: 'From', until: 'To' };

function readFilters(): ActivityFilters {
  const q = new URLSearchParams(location.search);
  return Object.fromEntries(FILTERS.flatMap((f) => (q.get(f) ? [[f, q.get(f)!]] : []))) as ActivityFilters;
}

const hrefWith = (filters: ActivityFilters): string => {
  const qs = new URLSearchParams(Object.entries(filters).filter(([, v]) => v)).toString();
  return `/activity${qs ? `?${qs}` : ''}`;
};

const revisionHref = (site: string, rev: string) => `/sites/${site}?rev=${encodeURIComponent(rev)}`;
const diffHref = (site: string, from: string, to: string) => `/sites/${site}?tab=history&diff=${encodeURIComponent(`${from}..${to}`)}`;

/** The actor as the `actor` filter names them: `key:<id>`, `connection:<id>`, or a person's name. */
function actorFilter(actor: unknown): string | undefined {
  const a = actor as { kind?: string; id?: unknown; name?: string };
  if (a?.kind === 'key' || a?.kind === 'connection') return `${a.kind}:${String(a.id)}`;
  if (a?.kind === 'user') return a.name;
  if (a?.kind === 'system') return `system:${a.name}`;
  return undefined;
}

/** Links and details of one entry: its revision, what changed, the key or webhook it made. */
function details(e: Activity): Child[] {
  const d = e.data;
  const out: Child[] = [];
  const rev = (d.revision as { id?: string; files?: number; size?: number } | undefined) ?? undefined;
  if (e.type === 'SitePublished' && e.site && rev?.id) {
    out.push(h('a', { href: revisionHref(e.site, rev.id), class: 'entry-link' }, `Revision ${rev.id.slice(0, 15)}`));
    if (typeof rev.files === 'number') out.push(h('span', { class: 'muted' }, `${plural(rev.files, 'file')}, ${formatBytes(rev.size)}`));
    const added = d.filesAdded as number | undefined;
    if (d.created !== true && added !== undefined) {
      out.push(h('a', { href: `/sites/${e.site}?tab=history`, class: 'entry-link' }, `+${added} ~${String(d.filesChanged ?? 0)} −${String(d.filesRemoved ?? 0)} files`));
    } else if (d.created === true) out.push(h('span', { class: 'badge ok' }, 'new site'));
  }
  if (e.type === 'SiteRolledBack' && e.site && typeof d.revisionId === 'string') {
    out.push(h('a', { href: revisionHref(e.site, d.revisionId), class: 'entry-link' }, `to ${d.revisionId.slice(0, 15)}`));
    if (typeof d.previousRevisionId === 'string') out.push(h('a', { href: diffHref(e.site, d.previousRevisionId, d.revisionId), class: 'entry-link' }, 'See what changed'));
  }
  if ((e.type === 'PreviewPublished' || e.type === 'PreviewRemoved' || e.type === 'PreviewExpired') && e.site && typeof d.name === 'string') {
    out.push(h('span', { class: 'preview-tag' }, d.name));
    if (e.type === 'PreviewPublished' && d.filesAdded !== undefined) {
      out.push(h('span', { class: 'muted' }, `+${String(d.filesAdded)} ~${String(d.filesChanged ?? 0)} −${String(d.filesRemoved ?? 0)} files against live`));
    }
  }
  if (e.type === 'SitePatched') {
    const meta = d.meta as { title?: string } | undefined;
    if (meta?.title) out.push(h('span', { class: 'muted' }, `title “${meta.title}”`));
  }
  if ((e.type === 'DomainAttached' || e.type === 'DomainDetached') && typeof d.domain === 'string') out.push(h('span', null, d.domain));
  if (e.type === 'KeyIssued') out.push(h('a', { href: '/keys', class: 'entry-link' }, `“${String(d.name)}” #${String(d.id)}`), d.admin ? h('span', { class: 'badge admin' }, 'Admin') : null);
  if (e.type === 'KeyRevoked') out.push(h('a', { href: '/keys', class: 'entry-link' }, `key #${String(d.id)}`));
  if (e.type === 'ConnectionGranted') out.push(h('span', null, String(d.clientName ?? '')), h('span', { class: 'muted' }, `for ${String(d.user ?? '')}`));
  if (e.type === 'WebhookCreated' || e.type === 'WebhookDeleted') out.push(h('a', { href: `/webhooks/${String(d.id)}`, class: 'entry-link' }, typeof d.url === 'string' ? d.url : String(d.id)));
  return out;
}

export async function renderActivity(ctx: ViewContext): Promise<void> {
  const { main, signal } = ctx;
  document.title = 'Activity · Sites';
  const filters = readFilters();
  const set = (next: ActivityFilters) => navigate(hrefWith(next));
  const add = (f: Filter, value: string) => set({ ...filters, [f]: value });
  const remove = (f: Filter) => {
    const { [f]: _gone, ...rest } = filters;
    set(rest);
  };

  // Chips: the filters in force, each with its own remove button.
  const chips = h(
    'div',
    { class: 'chips', role: 'group', 'aria-label': 'Filters in force' },
    FILTERS.filter((f) => filters[f]).map((f) =>
      h(
        'span',
        { class: 'chip active', 'data-filter': f },
        h('span', { class: 'chip-label' }, `${LABELS[f]}: `, h('strong', null, f === 'since' || f === 'until' ? filters[f]!.slice(0, 10) : filters[f]!)),
        h('button', { type: 'button', class: 'chip-remove', 'aria-label': `Remove the ${LABELS[f].toLowerCase()} filter`, onclick: () => remove(f) }, '×'),
      ),
    ),
    Object.keys(filters).length > 1 ? h('button', { type: 'button', class: 'link', onclick: () => set({}) }, 'Clear all') : null,
  );
  const quick = h(
    'div',
    { class: 'chips quick', role: 'group', 'aria-label': 'Show only' },
    QUICK.map((q) => h('button', { type: 'button', class: `chip${filters.type === q.type ? ' on' : ''}`, 'aria-pressed': filters.type === q.type ? 'true' : 'false', onclick: () => (filters.type === q.type ? remove('type') : add('type', q.type)) }, q.label)),
  );

  // The form adds the filters that have no quick chip: a site or group, who, a time range.
  const siteInput = h('input', { id: 'activity-site', type: 'text', placeholder: 'docs or docs/app', value: filters.site ?? '', autocomplete: 'off' });
  const actorInput = h('input', { id: 'activity-actor', type: 'text', placeholder: 'alice or key:3', value: filters.actor ?? '', autocomplete: 'off' });
  const sinceInput = h('input', { id: 'activity-since', type: 'date', value: filters.since?.slice(0, 10) ?? '' });
  const untilInput = h('input', { id: 'activity-until', type: 'date', value: filters.until?.slice(0, 10) ?? '' });
  const form = h(
    'form',
    { class: 'activity-filters', 'aria-label': 'Filter the activity' },
    h('p', { class: 'field' }, h('label', { for: 'activity-site' }, 'Site or group'), siteInput),
    h('p', { class: 'field' }, h('label', { for: 'activity-actor' }, 'By'), actorInput),
    h('p', { class: 'field' }, h('label', { for: 'activity-since' }, 'From'), sinceInput),
    h('p', { class: 'field' }, h('label', { for: 'activity-until' }, 'To'), untilInput),
    h('p', { class: 'field submit' }, h('button', { type: 'submit' }, 'Filter')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const next: ActivityFilters = { ...(filters.type ? { type: filters.type } : {}) };
    if (siteInput.value.trim()) next.site = siteInput.value.trim().replace(/^\/+|\/+$/g, '');
    if (actorInput.value.trim()) next.actor = actorInput.value.trim();
    if (sinceInput.value) next.since = sinceInput.value;
    if (untilInput.value) next.until = untilInput.value;
    set(next);
  });

  const exportButton = h('button', { type: 'button', class: 'secondary' }, 'Export (NDJSON)');
  exportButton.addEventListener('click', async () => {
    exportButton.disabled = true;
    try {
      const blob = await api.activityExport(filters);
      const a = h('a', { href: URL.createObjectURL(blob), download: `activity-${new Date().toISOString().slice(0, 10)}.ndjson` });
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    } catch (err) {
      replace(status, h('span', { class: 'error', role: 'alert' }, describeError(err)));
    } finally {
      exportButton.disabled = false;
    }
  });

  const list = h('div', { class: 'activity-list' }, stateLine('Loading activity…'));
  const status = h('div', { class: 'activity-more' });
  replace(
    main,
    h('div', { class: 'page-head' }, h('h1', null, 'Activity'), exportButton),
    h('p', { class: 'muted' }, 'Every change on this service, by whom and when: publishes, rollbacks, keys, connections and webhooks, across all sites.'),
    quick,
    form,
    chips,
    list,
    status,
  );

  let lastDay = '';
  let shown = 0;
  const entry = (e: Activity): HTMLElement => {
    const actor = actorFilter(e.actor);
    const verb = VERBS[e.type] ?? e.type;
    return h(
      'li',
      { class: 'activity-entry', 'data-type': e.type, 'data-id': e.id },
      h('time', { class: 'entry-time', datetime: e.at, title: formatTime(e.at, { seconds: true }) }, formatTime(e.at).slice(11, 16)),
      h(
        'div',
        { class: 'entry-body' },
        h(
          'p',
          { class: 'entry-line' },
          actor ? h('button', { type: 'button', class: 'link actor', title: 'Show only what they did', onclick: () => add('actor', actor) }, describeActor(e.actor, { short: true })) : describeActor(e.actor),
          ' ',
          h('button', { type: 'button', class: 'link verb', title: `Show only ${e.type}`, onclick: () => add('type', e.type) }, verb),
          e.site ? [' ', h('a', { href: `/sites/${e.site}`, class: 'site-link' }, e.site)] : null,
          e.site ? h('button', { type: 'button', class: 'chip small', title: `Show only ${e.site} and what is under it`, 'aria-label': `Filter by ${e.site}`, onclick: () => add('site', e.site!) }, 'filter') : null,
        ),
        h('p', { class: 'entry-details' }, details(e), when(e.at)),
      ),
    );
  };

  const append = (events: Activity[], into: HTMLElement) => {
    for (const e of events) {
      const day = localDay(e.at);
      if (day !== lastDay) {
        lastDay = day;
        into.append(h('h2', { class: 'day' }, dayHeading(day)), h('ul', { class: 'activity-day' }));
      }
      (into.lastElementChild as HTMLElement).append(entry(e));
      shown++;
    }
  };

  async function page(cursor?: string): Promise<void> {
    try {
      const { events, next } = await api.activity({ ...filters, ...(cursor ? { cursor } : {}), limit: 50 }, signal);
      if (!cursor) {
        if (events.length === 0) {
          replace(list, stateLine(Object.keys(filters).length ? 'Nothing matches these filters.' : 'Nothing has happened yet.'));
          replace(status);
          return;
        }
        replace(list);
      }
      append(events, list);
      replace(
        status,
        next
          ? h('button', { type: 'button', onclick: (ev: Event) => ((ev.target as HTMLButtonElement).disabled = true, void page(next)) }, 'Show older')
          : h('p', { class: 'muted' }, `${plural(shown, 'event')}, the oldest reached.`),
      );
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      replace(cursor ? status : list, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    }
  }
  await page();
}
