/** Admin actions on a site: edit metadata, unpublish, roll back. Each asks first. */
import { api } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h } from '../dom.ts';
import { formatBytes, formatTime, sitePath } from '../format.ts';
import { navigate } from '../router.ts';
import type { Revision, Site } from '../types.ts';

export async function editMetadata(site: Site, onDone: () => void): Promise<void> {
  const input = (id: string, label: string, value: string | undefined, attrs: Record<string, string> = {}) =>
    h('p', { class: 'field' }, h('label', { for: id }, label), h('input', { id, type: 'text', value: value ?? '', ...attrs }));
  const hidden = h('input', { id: 'meta-hidden', type: 'checkbox', checked: site.hidden });
  const description = h('textarea', { id: 'meta-description', rows: 3 }, site.description ?? '');
  const val = (id: string) => (document.getElementById(id) as HTMLInputElement).value.trim();
  const ok = await confirmDialog({
    title: `Edit ${sitePath(site)}`,
    body: [
      input('meta-title', 'Title', site.title, { required: 'true' }),
      h('p', { class: 'field' }, h('label', { for: 'meta-description' }, 'Description'), description),
      input('meta-date', 'Date (e.g. 2026-01-31)', site.date),
      input('meta-tags', 'Tags (comma-separated)', site.tags?.join(', ')),
      input('meta-repo', 'Repository', site.repo),
      input('meta-preview', 'Preview image URL', site.preview, { type: 'url' }),
      h('p', { class: 'field check' }, hidden, h('label', { for: 'meta-hidden' }, 'Hidden (listed for admins only)')),
    ],
    confirmLabel: 'Save',
    action: () => {
      const opt = (v: string) => (v === '' ? null : v); // null clears an optional field
      const tags = val('meta-tags').split(',').map((t) => t.trim()).filter((t) => t !== '');
      return api.patch(sitePath(site), {
        title: val('meta-title'),
        description: opt(description.value.trim()),
        date: opt(val('meta-date')),
        tags: tags.length ? tags : null,
        repo: opt(val('meta-repo')),
        preview: opt(val('meta-preview')),
        hidden: hidden.checked,
      });
    },
  });
  if (ok) {
    toast('Metadata saved.');
    onDone();
  }
}

export async function unpublishSite(site: Site): Promise<void> {
  const path = sitePath(site);
  const ok = await confirmDialog({
    title: `Unpublish ${path}?`,
    body: h('p', null, 'The site goes offline at once. Its files and revisions stay in the Trash, where an admin can restore it until it is purged.'),
    confirmLabel: 'Unpublish',
    danger: true,
    action: () => api.unpublish(path),
  });
  if (ok) {
    toast(`${path} was unpublished and moved to the Trash.`);
    navigate('/');
  }
}

export async function rollbackTo(site: Site, rev: Revision, current: Revision | undefined, label: (id: string) => string, onDone: () => void): Promise<void> {
  const ok = await confirmDialog({
    title: `Make ${label(rev.id)} live?`,
    body: [
      h('p', null, `Revision ${label(rev.id)} (`, h('code', null, rev.id), `, published ${formatTime(rev.created_at, { seconds: true })}, ${formatBytes(rev.size)}) replaces the live content of `, h('code', null, sitePath(site)), '.'),
      current && h('p', null, `The current revision ${label(current.id)} is archived, so this can be undone.`),
    ],
    confirmLabel: 'Roll back',
    danger: true,
    action: () => api.rollback(sitePath(site), rev.id),
  });
  if (ok) {
    toast(`Revision ${label(rev.id)} is live.`);
    onDone();
  }
}
