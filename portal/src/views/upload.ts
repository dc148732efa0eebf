/**
 * Upload dialog: publish a new site or a new version, by drag and drop or by choosing, with
 * progress. An archive or a page goes up in one request (`POST /api/sites`); a folder goes
 * through the deploy protocol, so only the files the site does not have yet are sent.
 */
import { ApiError, uploadSite } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h } from '../dom.ts';
import { chosenFolder, droppedFolder, publishFolder, type FolderFile, type FolderProgress } from '../folder-publish.ts';
import { formatBytes, plural } from '../format.ts';
import { navigate, siteHref } from '../router.ts';
import type { Site } from '../types.ts';

export type UploadOptions = { mode: 'new'; defaultGroup?: string } | { mode: 'replace'; site: Site; onDone: () => void };

const ACCEPT = '.zip,.tar.gz,.tgz,.html,.htm,application/zip,application/gzip,text/html';

/** What was chosen: one file (an archive or a page), or a folder of files. */
type Choice = { kind: 'file'; file: File } | { kind: 'folder'; name: string; files: FolderFile[] };

export async function openUploadDialog(opts: UploadOptions): Promise<void> {
  let choice: Choice | undefined;
  const input = h('input', { id: 'upload-file', type: 'file', accept: ACCEPT, class: 'sr-only' });
  const folderInput = h('input', { id: 'upload-folder', type: 'file', webkitdirectory: true, multiple: true, class: 'sr-only', tabindex: '-1' });
  const chosen = h('span', { class: 'chosen', 'aria-live': 'polite' }, 'Nothing chosen');
  const progress = h('progress', { id: 'upload-progress', max: 100, value: 0, hidden: true, 'aria-label': 'Upload progress' });
  const percent = h('span', { class: 'percent', 'aria-live': 'polite' });
  const drop = h(
    'label',
    { for: 'upload-file', class: 'dropzone' },
    h('strong', null, 'Drop a folder, or a .zip, .tar.gz or .html file, here'),
    h('span', null, 'or press to choose a file'),
    chosen,
  );
  const folderButton = h('button', { type: 'button', class: 'link', onclick: () => folderInput.click() }, 'Choose a folder instead');
  const pick = (c: Choice | undefined) => {
    choice = c;
    if (!c) chosen.textContent = 'Nothing chosen';
    else if (c.kind === 'file') chosen.textContent = `${c.file.name} (${formatBytes(c.file.size)})`;
    else chosen.textContent = `Folder ${c.name}/ (${plural(c.files.length, 'file')}, ${formatBytes(c.files.reduce((n, f) => n + f.file.size, 0))})`;
  };
  input.addEventListener('change', () => pick(input.files?.[0] ? { kind: 'file', file: input.files[0] } : undefined));
  folderInput.addEventListener('change', () => pick(folderInput.files?.length ? { kind: 'folder', ...chosenFolder(folderInput.files) } : undefined));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const dt = e.dataTransfer;
    if (!dt) return;
    const folder = droppedFolder(dt.items);
    const file = dt.files[0];
    if (!folder) return pick(file ? { kind: 'file', file } : undefined);
    chosen.textContent = 'Reading the folder…';
    folder.then(
      (f) => pick({ kind: 'folder', ...f }),
      (err: Error) => {
        pick(undefined);
        chosen.textContent = `The folder could not be read: ${err.message}`;
      },
    );
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

  const showProgress = (fraction: number, text: string) => {
    progress.hidden = false;
    progress.value = Math.round(fraction * 100);
    percent.textContent = text;
  };
  const folderProgress = (p: FolderProgress) => {
    if (p.phase === 'hashing') showProgress(p.total ? p.done / p.total : 1, `Checking ${p.done} of ${plural(p.total, 'file')}…`);
    else if (p.phase === 'uploading')
      showProgress(p.totalBytes ? p.sentBytes / p.totalBytes : 1, p.files ? `Sending ${plural(p.files, 'new file')}: ${formatBytes(p.sentBytes)} of ${formatBytes(p.totalBytes)}` : 'Nothing new to send');
    else showProgress(1, 'Publishing…');
  };

  let result: Site | undefined;
  let summary = '';
  const ok = await confirmDialog({
    title: opts.mode === 'new' ? 'Publish a site' : 'Upload a new version',
    body: [
      opts.mode === 'replace' &&
        h('p', null, 'This replaces the live content of ', h('code', null, target), '. With versioning on, the current version is archived and can be rolled back.'),
      ...newFields,
      input,
      folderInput,
      drop,
      h('p', { class: 'folder-choice' }, folderButton, h('span', { class: 'muted small' }, ' A folder sends only the files the site does not have yet.')),
      h('p', { class: 'progress-line' }, progress, percent),
    ],
    confirmLabel: opts.mode === 'new' ? 'Publish' : 'Replace live content',
    danger: opts.mode === 'replace',
    action: async () => {
      if (!choice) throw new ApiError(400, 'invalid', 'Choose a folder or a file to upload first.');
      const meta =
        opts.mode === 'new'
          ? { group: value('upload-group'), slug: value('upload-slug'), title: value('upload-title') }
          : { group: opts.site.group, slug: opts.site.slug };
      if (opts.mode === 'new' && (!meta.slug || !('title' in meta) || !meta.title)) throw new ApiError(400, 'invalid', 'A slug and a title are required.');
      if (choice.kind === 'folder') {
        const out = await publishFolder(meta, choice.files, folderProgress, new AbortController().signal).finally(() => (percent.textContent = ''));
        result = out.result.site;
        summary = ` ${plural(out.uploadedFiles, 'file')} of ${out.files} sent (${formatBytes(out.uploadedBytes)}); the site had the rest.`;
        return;
      }
      showProgress(0, '');
      const upload = uploadSite(meta, choice.file, (f) => showProgress(f, f >= 1 ? 'Processing…' : `${Math.round(f * 100)}%`));
      try {
        result = (await upload.done).site;
      } finally {
        percent.textContent = '';
      }
    },
  });
  if (!ok || !result) return;
  const path = result.group ? `${result.group}/${result.slug}` : result.slug;
  toast(`Published ${path}.${summary}`);
  if (opts.mode === 'replace') opts.onDone();
  else navigate(siteHref(path));
}
