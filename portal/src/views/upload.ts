/** Upload dialog: publish a new site or a new version, drag and drop, with upload progress. */
import { ApiError, uploadSite } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h } from '../dom.ts';
import { formatBytes } from '../format.ts';
import { navigate, siteHref } from '../router.ts';
import type { Site } from '../types.ts';

export type UploadOptions = { mode: 'new'; defaultGroup?: string } | { mode: 'replace'; site: Site; onDone: () => void };

const ACCEPT = '.zip,.tar.gz,.tgz,.html,.htm,application/zip,application/gzip,text/html';

export async function openUploadDialog(opts: UploadOptions): Promise<void> {
  let file: File | undefined;
  const input = h('input', { id: 'upload-file', type: 'file', accept: ACCEPT, class: 'sr-only' });
  const chosen = h('span', { class: 'chosen' }, 'No file chosen');
  const progress = h('progress', { id: 'upload-progress', max: 100, value: 0, hidden: true, 'aria-label': 'Upload progress' });
  const percent = h('span', { class: 'percent', 'aria-live': 'polite' });
  const drop = h(
    'label',
    { for: 'upload-file', class: 'dropzone' },
    h('strong', null, 'Drop a .zip, .tar.gz or .html file here'),
    h('span', null, 'or press to choose a file'),
    chosen,
  );
  const pick = (f: File | undefined) => {
    file = f;
    chosen.textContent = f ? `${f.name} (${formatBytes(f.size)})` : 'No file chosen';
  };
  input.addEventListener('change', () => pick(input.files?.[0]));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    pick(e.dataTransfer?.files[0]);
  });
  input.addEventListener('focus', () => drop.classList.add('focus'));
  input.addEventListener('blur', () => drop.classList.remove('focus'));

  const field = (id: string, label: string, attrs: Record<string, string | boolean> = {}) =>
    h('p', { class: 'field' }, h('label', { for: id }, label), h('input', { id, type: 'text', autocomplete: 'off', ...attrs }));
  const newFields =
    opts.mode === 'new'
      ? [
          field('upload-group', 'Group (optional, e.g. docs or team/docs)', { value: opts.defaultGroup ?? '', spellcheck: 'false' }),
          field('upload-slug', 'Slug', { required: true, spellcheck: 'false', pattern: '[a-z0-9]([a-z0-9\\-]*[a-z0-9])?' }),
          field('upload-title', 'Title', { required: true }),
        ]
      : [];
  const value = (id: string) => (document.getElementById(id) as HTMLInputElement | null)?.value.trim() ?? '';
  const target = opts.mode === 'replace' ? (opts.site.group ? `${opts.site.group}/${opts.site.slug}` : opts.site.slug) : '';

  let result: Site | undefined;
  const ok = await confirmDialog({
    title: opts.mode === 'new' ? 'Publish a site' : 'Upload a new version',
    body: [
      opts.mode === 'replace' &&
        h('p', null, 'This replaces the live content of ', h('code', null, target), '. With versioning on, the current version is archived and can be rolled back.'),
      ...newFields,
      input,
      drop,
      h('p', { class: 'progress-line' }, progress, percent),
    ],
    confirmLabel: opts.mode === 'new' ? 'Publish' : 'Replace live content',
    danger: opts.mode === 'replace',
    action: async () => {
      if (!file) throw new ApiError(400, 'invalid', 'Choose a file to upload first.');
      const meta =
        opts.mode === 'new'
          ? { group: value('upload-group'), slug: value('upload-slug'), title: value('upload-title') }
          : { group: opts.site.group, slug: opts.site.slug };
      if (opts.mode === 'new' && (!meta.slug || !('title' in meta) || !meta.title)) throw new ApiError(400, 'invalid', 'A slug and a title are required.');
      progress.hidden = false;
      progress.value = 0;
      const upload = uploadSite(meta, file, (f) => {
        progress.value = Math.round(f * 100);
        percent.textContent = f >= 1 ? 'Processing…' : `${Math.round(f * 100)}%`;
      });
      try {
        result = (await upload.done).site;
      } finally {
        percent.textContent = '';
      }
    },
  });
  if (!ok || !result) return;
  const path = result.group ? `${result.group}/${result.slug}` : result.slug;
  toast(`Published ${path}.`);
  if (opts.mode === 'replace') opts.onDone();
  else navigate(siteHref(path));
}
