/** Trash (admins): quarantined sites, restore or purge (purge asks to type the site path). */
import { api, describeError } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h, replace, stateLine } from '../dom.ts';
import { describeActor, formatBytes, formatTime, plural, sitePath } from '../format.ts';
import type { ViewContext } from '../view-context.ts';
import { dataTable } from '../table.ts';
import type { Site } from '../types.ts';
import { when } from '../widgets.ts';

/**
 * When a site leaves the trash for good: "in 29 days", exact time on hover. The quarantine
 * job runs about once a minute, so a moment already past means "any moment now".
 */
function purgeWhen(iso: string | undefined): Node | string {
  if (!iso) return h('span', { class: 'muted' }, 'not known');
  if (Date.parse(iso) <= Date.now()) return h('span', { class: 'badge warn', title: formatTime(iso, { seconds: true }) }, 'any moment now');
  return when(iso);
}

/** "30 days": how long the service keeps an unpublished site (SITES_DELETED_SITE_TTL), read off a site in the trash. */
function retention(sites: readonly Site[]): string | undefined {
  const s = sites.find((x) => x.purge_at && x.deleted_at);
  if (!s) return undefined;
  const minutes = Math.round((Date.parse(s.purge_at!) - Date.parse(s.deleted_at!)) / 60_000);
  return minutes % 1440 === 0 ? plural(minutes / 1440, 'day') : minutes % 60 === 0 ? plural(minutes / 60, 'hour') : plural(minutes, 'minute');
}

const intro = (kept: string | undefined) =>
  `Unpublished sites wait here, offline, ${kept ? `for ${kept}` : 'for a while'}; then they are purged automatically. Restore one to put it back online as it was.`;

export async function renderTrash(ctx: ViewContext): Promise<void> {
  const { main, signal } = ctx;
  document.title = 'Trash · Sites';
  const body = h('div', { class: 'trash-body' }, stateLine('Loading the trash…'));
  const lead = h('p', { class: 'muted trash-intro' }, intro(undefined));
  replace(
    main,
    h('div', { class: 'page-head' }, h('h1', null, 'Trash')),
    lead,
    body,
  );
  const reload = () => {
    if (!signal.aborted) void load();
  };

  async function restore(site: Site): Promise<void> {
    const path = sitePath(site);
    const ok = await confirmDialog({
      title: `Restore ${path}?`,
      body: h('p', null, 'The site goes back online exactly as it was when it was unpublished.'),
      confirmLabel: 'Restore',
      action: () => api.restore(path),
    });
    if (ok) {
      toast(`${path} is live again.`);
      reload();
    }
  }

  async function purge(site: Site): Promise<void> {
    const path = sitePath(site);
    const ok = await confirmDialog({
      title: `Purge ${path} for good?`,
      body: h('p', null, 'Every file and revision of this site is destroyed. This cannot be undone.'),
      confirmLabel: 'Purge forever',
      danger: true,
      typeToConfirm: path,
      action: () => api.purge(path),
    });
    if (ok) {
      toast(`${path} was purged.`);
      reload();
    }
  }

  async function load(): Promise<void> {
    try {
      const { sites } = await api.deleted(signal);
      if (sites.length === 0) {
        replace(body, stateLine('The trash is empty. To take a site offline, open its page and press Unpublish.'));
        return;
      }
      lead.textContent = intro(retention(sites));
      replace(
        body,
        h('p', { class: 'summary', role: 'status' }, plural(sites.length, 'site')),
        dataTable({
          caption: 'Sites in the trash',
          class: 'trash-table',
          columns: [
            { label: 'Path' },
            { label: 'Title' },
            { label: 'Unpublished', class: 'nowrap' },
            { label: 'Purged', class: 'nowrap' },
            { label: 'Size', class: 'nowrap num' },
            { label: 'Actions', srOnly: true },
          ],
          rows: sites.map((s) => ({
            attrs: { 'data-path': sitePath(s) },
            cells: [
              h('code', null, sitePath(s)),
              s.title,
              [when(s.deleted_at), s.updated_by ? h('span', { class: 'by muted' }, `by ${describeActor(s.updated_by, { short: true })}`) : null],
              purgeWhen(s.purge_at),
              formatBytes(s.size),
              h(
                'div',
                { class: 'row-actions' },
                h('button', { type: 'button', 'aria-label': `Restore ${sitePath(s)}`, onclick: () => void restore(s) }, 'Restore'),
                h('button', { type: 'button', class: 'danger', 'aria-label': `Purge ${sitePath(s)}`, onclick: () => void purge(s) }, 'Purge'),
              ),
            ],
          })),
        }),
      );
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      replace(body, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    }
  }
  await load();
}
