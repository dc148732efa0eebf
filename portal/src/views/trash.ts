/** Trash (admins): quarantined sites, restore or purge (purge asks to type the site path). */
import { api, describeError } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h, replace, stateLine } from '../dom.ts';
import { formatBytes, plural, sitePath } from '../format.ts';
import type { ViewContext } from '../main.ts';
import { dataTable } from '../table.ts';
import type { Site } from '../types.ts';
import { when } from '../widgets.ts';

export async function renderTrash(ctx: ViewContext): Promise<void> {
  const { main, signal } = ctx;
  document.title = 'Trash · Sites';
  const body = h('div', { class: 'trash-body' }, stateLine('Loading the trash…'));
  replace(
    main,
    h('div', { class: 'page-head' }, h('h1', null, 'Trash')),
    h('p', { class: 'muted' }, 'Unpublished sites are kept here, offline, until they are purged (automatically after the retention time).'),
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
      replace(
        body,
        h('p', { class: 'summary', role: 'status' }, plural(sites.length, 'site')),
        dataTable({
          caption: 'Sites in the trash',
          class: 'trash-table',
          columns: [{ label: 'Path' }, { label: 'Title' }, { label: 'Unpublished', class: 'nowrap' }, { label: 'Size', class: 'nowrap num' }, { label: 'Actions', srOnly: true }],
          rows: sites.map((s) => ({
            attrs: { 'data-path': sitePath(s) },
            cells: [
              h('code', null, sitePath(s)),
              s.title,
              when(s.deleted_at),
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
