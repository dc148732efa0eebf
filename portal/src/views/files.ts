/** The Files tab: revision selector, collapsible file tree, preview, downloads, rollback, compare. */
import { api, describeError } from '../api.ts';
import { IMAGE_EXT, TEXT_EXT } from '../diff-model.ts';
import { h, replace, stateLine } from '../dom.ts';
import { revisionOption } from '../changelog.ts';
import { formatBytes, sitePath } from '../format.ts';
import { setQuery } from '../router.ts';
import type { FileNode, Revision } from '../types.ts';
import { permalink, revId } from '../widgets.ts';
import { rollbackTo } from './site-actions.ts';
import type { TabContext } from './tab-context.ts';

const MAX_TEXT_PREVIEW = 256 * 1024;

/** The portal URL of the Compare tab for two revisions. */
export function compareHref(site: { group: string; slug: string }, from: string, to: string): string {
  return `/sites/${sitePath(site)}?tab=compare&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
}

export async function renderFilesTab(ctx: TabContext): Promise<void> {
  const { panel, site, me, signal } = ctx;
  const path = sitePath(site);
  replace(panel, stateLine('Loading revisions…'));
  let revisions: Revision[];
  let label: (id: string) => string;
  try {
    [revisions, label] = await Promise.all([ctx.data.revisions(), ctx.data.label()]);
    if (signal.aborted) return;
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(panel, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return;
  }
  const params = new URLSearchParams(location.search);
  const wanted = params.get('rev');
  let rev = revisions.find((r) => r.id === wanted && !r.current) ?? revisions.find((r) => r.current) ?? revisions[0];
  const liveRev = revisions.find((r) => r.current);
  const revSelect = h(
    'select',
    { id: 'revision-select' },
    revisions.map((r) => h('option', { value: r.id, selected: r === rev }, revisionOption(r, label(r.id)))),
  );
  const idBox = h('p', { class: 'rev-line muted small' });
  const compareLink = h('a', { class: 'button' }, 'Compare');
  const zipLink = h('a', { class: 'button', download: '' }, 'Download .zip');
  const rollbackBtn = h('button', { type: 'button', class: 'danger' }, 'Make this revision live');
  rollbackBtn.addEventListener('click', () =>
    void rollbackTo(site, rev, liveRev, label, () => {
      setQuery({ rev: '', file: '' });
      ctx.reload();
    }),
  );
  const treeBox = h('div', { class: 'file-tree', 'aria-label': 'Files' });
  const preview = h('section', { class: 'file-preview', 'aria-label': 'File preview', 'aria-live': 'polite' });
  let previewCtl: AbortController | undefined;
  signal.addEventListener('abort', () => previewCtl?.abort());

  function revParam(): string {
    return rev.current ? 'current' : rev.id;
  }

  async function showFile(node: FileNode): Promise<void> {
    setQuery({ file: node.path });
    treeBox.querySelectorAll('[aria-current]').forEach((el) => el.removeAttribute('aria-current'));
    treeBox.querySelector(`[data-file="${CSS.escape(node.path)}"]`)?.setAttribute('aria-current', 'true');
    previewCtl?.abort();
    previewCtl = new AbortController();
    const url = api.fileUrl(path, revParam(), node.path);
    const head = h(
      'div',
      { class: 'preview-head' },
      h('h3', null, node.path),
      h('span', { class: 'muted' }, formatBytes(node.size)),
      h('a', { class: 'button', href: url, download: node.name }, 'Download file'),
    );
    if (IMAGE_EXT.test(node.name)) {
      replace(preview, head, h('div', { class: 'image-preview' }, h('img', { src: url, alt: `Preview of ${node.path}` })));
    } else if (TEXT_EXT.test(node.name) && (node.size ?? 0) <= MAX_TEXT_PREVIEW) {
      replace(preview, head, stateLine('Loading preview…'));
      try {
        const res = await fetch(url, { signal: previewCtl.signal });
        if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
        const text = await res.text();
        replace(preview, head, h('pre', { class: 'code', tabindex: '0', 'aria-label': `Contents of ${node.path}` }, text || '(empty file)'));
      } catch (err) {
        if ((err as Error).name === 'AbortError') return;
        replace(preview, head, h('p', { class: 'state error', role: 'alert' }, `The preview could not be loaded: ${(err as Error).message}`));
      }
    } else {
      replace(preview, head, stateLine('No preview for this kind of file. Use Download file.'));
    }
  }

  function treeNodes(nodes: FileNode[], depth: number): HTMLElement {
    return h(
      'ul',
      { role: depth === 0 ? null : 'group' },
      nodes.map((n) =>
        n.dir
          ? h(
              'li',
              null,
              h('details', { open: depth === 0 }, h('summary', null, h('span', { class: 'icon', 'aria-hidden': 'true' }, '▸'), n.name, '/'), treeNodes(n.children ?? [], depth + 1)),
            )
          : h(
              'li',
              null,
              h('button', { type: 'button', class: 'file', 'data-file': n.path, onclick: () => void showFile(n) }, h('span', { class: 'name' }, n.name), h('span', { class: 'size' }, formatBytes(n.size))),
            ),
      ),
    );
  }

  async function loadTree(): Promise<void> {
    zipLink.setAttribute('href', api.archiveUrl(path, revParam()));
    zipLink.setAttribute('download', `${path.replaceAll('/', '-')}-${rev.current ? 'current' : rev.id}.zip`);
    rollbackBtn.hidden = !me.is_admin || rev.current;
    const link = permalink(rev.url, label(rev.id));
    replace(idBox, 'Revision id ', revId(rev.id), link ? [' · ', link] : null);
    // The live revision against the one before it; an older one against what is live now.
    const other = rev.current ? revisions.find((r) => !r.current) : liveRev;
    compareLink.hidden = !other;
    if (other) {
      compareLink.setAttribute('href', rev.current ? compareHref(site, other.id, rev.id) : compareHref(site, rev.id, other.id));
      compareLink.textContent = rev.current ? `Compare with ${label(other.id)}` : 'Compare with current';
    }
    replace(treeBox, stateLine('Loading files…'));
    replace(preview, stateLine('Choose a file to preview it.'));
    try {
      const root = await api.files(path, revParam(), signal);
      if (signal.aborted) return;
      replace(treeBox, root.children?.length ? treeNodes(root.children, 0) : stateLine('This revision has no files.'));
      const file = new URLSearchParams(location.search).get('file');
      const found = file ? findNode(root, file) : undefined;
      if (found && !found.dir) {
        openAncestors(found.path);
        void showFile(found);
      }
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      replace(treeBox, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    }
  }

  function openAncestors(filePath: string): void {
    treeBox.querySelector(`[data-file="${CSS.escape(filePath)}"]`)?.closest('details')?.setAttribute('open', '');
    let d = treeBox.querySelector(`[data-file="${CSS.escape(filePath)}"]`)?.closest('details');
    while (d) {
      d.open = true;
      d = d.parentElement?.closest('details') ?? null;
    }
  }

  revSelect.addEventListener('change', () => {
    rev = revisions.find((r) => r.id === revSelect.value) ?? rev;
    setQuery({ rev: rev.current ? '' : rev.id, file: '' });
    void loadTree();
  });

  replace(
    panel,
    h(
      'div',
      { class: 'files-toolbar' },
      h('p', { class: 'field' }, h('label', { for: 'revision-select' }, 'Revision'), revSelect),
      h('div', { class: 'actions' }, zipLink, compareLink, rollbackBtn),
    ),
    idBox,
    revisions.length === 1
      ? h('p', { class: 'muted small' }, me.versioning_enabled ? 'Only the current revision is kept so far: each new publish keeps the one it replaces.' : 'Only the current revision is kept: versioning is off on this service.')
      : null,
    h('div', { class: 'files-layout' }, treeBox, preview),
  );
  await loadTree();
}

function findNode(node: FileNode, path: string): FileNode | undefined {
  if (node.path === path) return node;
  for (const c of node.children ?? []) {
    const f = findNode(c, path);
    if (f) return f;
  }
  return undefined;
}
