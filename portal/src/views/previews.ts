/**
 * A site's previews (spec §14) on its page: each named, expiring copy beside the live site
 * with its link, what it is (the pull request, usually), who made it, when it was last
 * published and when it expires, what it changes against live, a way to see those changes
 * in the diff view, and (admins) its removal after a confirmation. Everything a publisher
 * gave (name, title, description, link) is drawn as text: only an http(s) link becomes a link.
 */
import { api, describeError } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h, replace } from '../dom.ts';
import { describeActor, formatBytes, plural, sitePath } from '../format.ts';
import type { Me, Preview, Site } from '../types.ts';
import { dataTable } from '../table.ts';
import { changeSummary, when } from '../widgets.ts';
import { compareHref } from './files.ts';

/** Previews shown before "Show all": the most recently published ones. */
const FIRST_SHOWN = 5;

/** How the diff view names a preview: the API's `preview:<name>` (spec §14). */
export const previewRef = (name: string): string => `preview:${name}`;

const httpUrl = (s: string | undefined): string | undefined => (s && /^https?:\/\//i.test(s) ? s : undefined);

/** The preview's name, opening it on its own host, with that host under it, then what it is. */
function previewCell(p: Preview): HTMLElement {
  const repo = httpUrl(p.repo);
  return h(
    'div',
    { class: 'preview-what' },
    h('a', { class: 'preview-link', href: p.url, target: '_blank', rel: 'noopener', 'aria-label': `Open the preview ${p.name}` }, h('code', { class: 'preview-name' }, p.name), h('span', { 'aria-hidden': 'true' }, ' ↗')),
    h('span', { class: 'preview-host muted small' }, p.url.replace(/^https?:\/\//, '').replace(/\/$/, '')),
    p.title ? h('span', { class: 'preview-title' }, p.title) : null,
    p.description ? h('span', { class: 'preview-desc muted small' }, p.description) : null,
    repo ? h('a', { class: 'preview-repo small', href: repo, target: '_blank', rel: 'noopener noreferrer' }, repo) : p.repo ? h('span', { class: 'preview-repo muted small' }, p.repo) : null,
  );
}

/** "expires in 3 days", marked when it is under a day away. */
function expiry(p: Preview): HTMLElement {
  const soon = Date.parse(p.expires_at) - Date.now() < 24 * 3_600_000;
  return h('span', { class: soon ? 'expires soon' : 'expires' }, when(p.expires_at));
}

/**
 * The previews section: drawn into `box`, which stays empty while the site has none.
 * `onChange` runs after a removal (the page's counts change).
 */
export async function renderPreviews(box: HTMLElement, opts: { site: Site; me: Me; signal: AbortSignal; onChange: () => void }): Promise<void> {
  const { site, me, signal } = opts;
  const path = sitePath(site);
  let previews: Preview[];
  try {
    previews = (await api.previews(path, signal)).previews;
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(box, h('section', { class: 'previews', 'aria-labelledby': 'previews-title' }, h('h2', { id: 'previews-title' }, 'Previews'), h('p', { class: 'state error', role: 'alert' }, describeError(err))));
    return;
  }
  if (signal.aborted) return;
  if (previews.length === 0) {
    replace(box);
    return;
  }
  // Most recently published first: the pull request someone is looking at now.
  previews.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : a.name.localeCompare(b.name)));

  const remove = async (p: Preview) => {
    const ok = await confirmDialog({
      title: `Remove the preview ${p.name}?`,
      body: [
        h('p', null, 'The preview ', h('code', null, p.url), ' goes offline at once and its files are deleted. The live site is not touched.'),
        h('p', { class: 'muted small' }, 'Publishing it again (the next push to its pull request) makes a new one.'),
      ],
      confirmLabel: 'Remove preview',
      danger: true,
      action: () => api.removePreview(path, p.name),
    });
    if (ok) {
      toast(`Preview ${p.name} was removed.`);
      opts.onChange();
    }
  };

  const rows = previews.map((p, i) => ({
    // a site with dozens of open pull requests would push its files far down: the rest waits behind "Show all"
    attrs: { 'data-preview': p.name, hidden: i >= FIRST_SHOWN },
    cells: [
      previewCell(p),
      h('span', null, describeActor(p.created_by, { short: true })),
      h('span', { class: 'preview-updated' }, when(p.updated_at), h('span', { class: 'muted small' }, `${plural(p.files, 'file')}, ${formatBytes(p.size)}`)),
      expiry(p),
      p.changes ? changeSummary({ counts: p.changes }) : h('span', { class: 'muted' }, '—'),
      h(
        'div',
        { class: 'row-actions' },
        h('a', { class: 'button', href: compareHref(site, 'current', previewRef(p.name)), 'aria-label': `Compare ${p.name} with live` }, 'Compare with live'),
        me.is_admin ? h('button', { type: 'button', class: 'danger', 'aria-label': `Remove preview ${p.name}`, onclick: () => void remove(p) }, 'Remove') : null,
      ),
    ],
  }));

  const table = dataTable({
    caption: `Previews of ${path}`,
    class: 'previews-table',
    columns: [{ label: 'Preview' }, { label: 'By', class: 'nowrap' }, { label: 'Updated' }, { label: 'Expires' }, { label: 'Against live' }, { label: 'Actions', srOnly: true }],
    rows,
  });
  let showAll: HTMLButtonElement | null = null;
  if (previews.length > FIRST_SHOWN) {
    const button = h('button', { type: 'button', class: 'more' }, `Show all ${previews.length} previews`);
    button.addEventListener('click', () => {
      table.querySelectorAll('tr[hidden]').forEach((tr) => tr.removeAttribute('hidden'));
      button.remove();
    });
    showAll = button;
  }
  replace(
    box,
    h(
      'section',
      { class: 'previews', 'aria-labelledby': 'previews-title' },
      h('h2', { id: 'previews-title' }, 'Previews ', h('span', { class: 'muted' }, `(${previews.length})`)),
      h('p', { class: 'muted small' }, 'Copies beside the live site, one per pull request usually; each expires some time after its last publish.'),
      table,
      showAll,
    ),
  );
}
