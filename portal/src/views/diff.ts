/**
 * The difference between two revisions: files added, changed and removed with their sizes;
 * a changed text file opens to a unified line diff (under a size cap), a changed image to
 * both versions side by side. Used by the History (one change) and Compare (any two) tabs.
 */
import { api, describeError } from '../api.ts';
import { TEXT_DIFF_CAP, fileKind, lineDiff, looksBinary, withinTextCap, type DiffLine } from '../diff-model.ts';
import { h, replace, stateLine } from '../dom.ts';
import { formatBytes, formatSignedBytes, plural, sitePath } from '../format.ts';
import type { RevisionDiff, Site } from '../types.ts';

/** Entries listed per section before "and N more" (a 5,000-file publish is summarised, not drawn). */
const MAX_LISTED = 300;
/** Changed files opened at once: the first few are what a reader looks at first. */
const AUTO_OPEN = 3;

/**
 * `from`/`to`: revision ids, `current`, or a preview as `preview:<name>` (spec §14). A preview's
 * files are not read through the API, so a side that is a preview links to its page on the
 * preview's own host (`previewUrls`: ref → its address) instead of offering a line diff.
 */
export type DiffOptions = { site: Site; from: string; to: string; label: (id: string) => string; signal: AbortSignal; previewUrls?: ReadonlyMap<string, string> };

const isPreviewRef = (ref: string) => ref.startsWith('preview:');

const filesHref = (site: Site, rev: string, file: string) =>
  `/sites/${sitePath(site)}?rev=${encodeURIComponent(rev)}&file=${encodeURIComponent(file)}`;

/** Fetches the diff of `from` → `to` and draws it into `box`. Resolves with the diff (undefined on failure). */
export async function renderDiff(box: HTMLElement, opts: DiffOptions): Promise<RevisionDiff | undefined> {
  const { site, signal, label } = opts;
  const path = sitePath(site);
  replace(box, stateLine('Comparing the two revisions…'));
  let diff: RevisionDiff;
  try {
    diff = await api.diff(path, opts.from, opts.to, signal);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return undefined;
    replace(box, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return undefined;
  }
  if (signal.aborted) return undefined;
  // A preview keeps its name in the view, whatever revision id the answer resolves it to.
  const fromRef = isPreviewRef(opts.from) ? opts.from : diff.from;
  const toRef = isPreviewRef(opts.to) ? opts.to : diff.to;
  const from = label(fromRef);
  const to = label(toRef);
  const onPreview = (ref: string, file: string): string | undefined => {
    const base = isPreviewRef(ref) ? opts.previewUrls?.get(ref) : undefined;
    return base ? `${base.replace(/\/$/, '')}/${file.split('/').map(encodeURIComponent).join('/')}` : undefined;
  };
  const total = diff.added.length + diff.changed.length + diff.removed.length;
  const net = diff.bytes_added - diff.bytes_removed;

  const summary = h(
    'p',
    { class: 'diff-summary', role: 'status' },
    total === 0
      ? `${from} and ${to} have exactly the same files (${plural(diff.unchanged, 'file')}).`
      : [
          h('span', { class: `count ${diff.added.length ? 'add' : 'zero'}` }, `${diff.added.length} added`),
          ' · ',
          h('span', { class: `count ${diff.changed.length ? 'chg' : 'zero'}` }, `${diff.changed.length} changed`),
          ' · ',
          h('span', { class: `count ${diff.removed.length ? 'del' : 'zero'}` }, `${diff.removed.length} removed`),
          ' · ',
          `${diff.unchanged.toLocaleString('en')} unchanged`,
          h('span', { class: 'diff-bytes' }, ` · size ${formatSignedBytes(net)}`),
        ],
  );

  let opened = 0;
  const changed = diff.changed.map((c) => {
    const kind = fileKind(c.path);
    const body = h('div', { class: 'diff-body' });
    const details = h(
      'details',
      { class: 'diff-file changed', 'data-path': c.path },
      h(
        'summary',
        null,
        h('span', { class: 'mark chg', 'aria-hidden': 'true' }, '~'),
        h('span', { class: 'file-path' }, c.path),
        h('span', { class: 'sizes' }, `${formatBytes(c.size_before)} → ${formatBytes(c.size_after)}`, h('span', { class: 'delta' }, ` (${formatSignedBytes(c.size_after - c.size_before)})`)),
      ),
      body,
    );
    let loaded = false;
    const previewSide = isPreviewRef(fromRef) ? fromRef : isPreviewRef(toRef) ? toRef : undefined;
    const load = () => {
      if (loaded || !details.open) return;
      loaded = true;
      if (previewSide) {
        const url = onPreview(previewSide, c.path);
        replace(body, h('p', { class: 'state' }, 'A preview is compared file by file, not line by line. ', url ? h('a', { href: url, target: '_blank', rel: 'noopener' }, `Open ${c.path} on ${label(previewSide)}`) : null));
        return;
      }
      void fileChange(body, opts, diff, c, kind);
    };
    details.addEventListener('toggle', load);
    const showable = !previewSide && (kind === 'image' || (kind === 'text' && withinTextCap(c.size_before, c.size_after)));
    if (showable && opened < AUTO_OPEN) {
      opened++;
      details.open = true;
      queueMicrotask(load);
    }
    return details;
  });

  const simple = (kind: 'add' | 'del', list: { path: string; size: number }[], rev: string) =>
    list.slice(0, MAX_LISTED).map((f) => {
      const external = onPreview(rev, f.path);
      return h(
        'li',
        { class: `diff-file ${kind === 'add' ? 'added' : 'removed'}`, 'data-path': f.path },
        h('span', { class: `mark ${kind}`, 'aria-hidden': 'true' }, kind === 'add' ? '+' : '−'),
        external
          ? h('a', { class: 'file-path', href: external, target: '_blank', rel: 'noopener', title: `Open ${f.path} on ${label(rev)}` }, f.path)
          : isPreviewRef(rev)
            ? h('span', { class: 'file-path' }, f.path)
            : h('a', { class: 'file-path', href: filesHref(site, rev, f.path), title: `Open ${f.path} in ${label(rev)}` }, f.path),
        h('span', { class: 'sizes' }, formatBytes(f.size)),
      );
    });
  const more = (n: number) => (n > MAX_LISTED ? h('p', { class: 'muted small' }, `…and ${plural(n - MAX_LISTED, 'more file')}.`) : null);
  const section = (title: string, cls: string, count: number, content: Node | Node[], extra: Node | null) =>
    count === 0 ? null : h('section', { class: `diff-section ${cls}`, 'aria-label': `${title} (${count})` }, h('h3', null, `${title} `, h('span', { class: 'muted' }, `(${count.toLocaleString('en')})`)), content, extra);

  replace(
    box,
    summary,
    section('Changed', 'changed', diff.changed.length, h('div', { class: 'diff-list' }, changed.slice(0, MAX_LISTED)), more(diff.changed.length)),
    section('Added', 'added', diff.added.length, h('ul', { class: 'diff-list' }, simple('add', diff.added, toRef)), more(diff.added.length)),
    section('Removed', 'removed', diff.removed.length, h('ul', { class: 'diff-list' }, simple('del', diff.removed, fromRef)), more(diff.removed.length)),
  );
  return diff;
}

/** The body of one changed file: a line diff, two images, or why neither is shown. */
async function fileChange(
  body: HTMLElement,
  opts: DiffOptions,
  diff: RevisionDiff,
  c: RevisionDiff['changed'][number],
  kind: ReturnType<typeof fileKind>,
): Promise<void> {
  const path = sitePath(opts.site);
  const before = api.fileUrl(path, diff.from, c.path);
  const after = api.fileUrl(path, diff.to, c.path);
  const name = c.path.slice(c.path.lastIndexOf('/') + 1);
  const downloads = h(
    'p',
    { class: 'diff-downloads' },
    h('a', { href: before, download: name }, `Download ${opts.label(diff.from)}`),
    h('a', { href: after, download: name }, `Download ${opts.label(diff.to)}`),
  );
  if (kind === 'image') {
    const figure = (url: string, rev: string, size: number, which: string) =>
      h(
        'figure',
        { class: `image-side ${which}` },
        h('div', { class: 'image-preview' }, h('img', { src: url, alt: `${c.path} in ${opts.label(rev)} (${which})`, loading: 'lazy' })),
        h('figcaption', null, h('strong', null, which === 'before' ? 'Before' : 'After'), ` · ${opts.label(rev)} · ${formatBytes(size)}`),
      );
    replace(body, h('div', { class: 'image-compare' }, figure(before, diff.from, c.size_before, 'before'), figure(after, diff.to, c.size_after, 'after')));
    return;
  }
  if (kind === 'other') {
    replace(body, h('p', { class: 'state' }, 'Not a text file, so there is no line diff.'), downloads);
    return;
  }
  if (!withinTextCap(c.size_before, c.size_after)) {
    replace(body, h('p', { class: 'state' }, `Too large to compare line by line (the limit is ${formatBytes(TEXT_DIFF_CAP)} on each side).`), downloads);
    return;
  }
  replace(body, stateLine('Loading both versions…'));
  let texts: [string, string];
  try {
    texts = await Promise.all([api.fileText(path, diff.from, c.path, opts.signal), api.fileText(path, diff.to, c.path, opts.signal)]);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(body, h('p', { class: 'state error', role: 'alert' }, `The two versions could not be loaded: ${describeError(err)}`), downloads);
    return;
  }
  if (looksBinary(texts[0]) || looksBinary(texts[1])) {
    replace(body, h('p', { class: 'state' }, 'These bytes are not text, so there is no line diff.'), downloads);
    return;
  }
  const d = lineDiff(texts[0], texts[1]);
  if (!d) {
    replace(body, h('p', { class: 'state' }, 'The two versions differ too much to show line by line.'), downloads);
    return;
  }
  if (d.lines.length === 0) {
    replace(body, h('p', { class: 'state' }, 'The text is the same; only invisible bytes (such as line endings) changed.'), downloads);
    return;
  }
  replace(
    body,
    h('p', { class: 'line-stats muted small' }, h('span', { class: 'count add' }, `+${d.added}`), ' ', h('span', { class: 'count del' }, `−${d.removed}`), ` ${d.added + d.removed === 1 ? 'line' : 'lines'}`),
    lineTable(d.lines, c.path),
    d.truncated > 0 ? h('p', { class: 'muted small' }, `${plural(d.truncated, 'more line')} not shown. Download both versions to see everything.`) : null,
    d.truncated > 0 ? downloads : null,
  );
}

function lineTable(lines: DiffLine[], path: string): HTMLElement {
  const row = (l: DiffLine) => {
    if (l.kind === 'hunk') return h('tr', { class: 'hunk' }, h('td', { colspan: 3 }, l.text));
    if (l.kind === 'note') return h('tr', { class: 'note' }, h('td', { class: 'ln' }), h('td', { class: 'ln' }), h('td', { class: 'code' }, `\\ ${l.text}`));
    const mark = l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' ';
    return h(
      'tr',
      { class: l.kind },
      h('td', { class: 'ln' }, l.old ?? ''),
      h('td', { class: 'ln' }, l.new ?? ''),
      h('td', { class: 'code' }, h('span', { class: 'mark', 'aria-hidden': 'true' }, mark), l.kind === 'ctx' ? null : h('span', { class: 'sr-only' }, l.kind === 'add' ? 'added: ' : 'removed: '), l.text || ' '),
    );
  };
  return h(
    'div',
    { class: 'line-diff-wrap', tabindex: '0', 'aria-label': `Line changes of ${path}` },
    h(
      'table',
      { class: 'line-diff' },
      h('caption', { class: 'sr-only' }, `Line changes of ${path}`),
      h('colgroup', null, h('col', { class: 'ln' }), h('col', { class: 'ln' }), h('col')),
      h('thead', { class: 'sr-only' }, h('tr', null, h('th', { scope: 'col' }, 'Old line'), h('th', { scope: 'col' }, 'New line'), h('th', { scope: 'col' }, 'Text'))),
      h('tbody', null, lines.map(row)),
    ),
  );
}
