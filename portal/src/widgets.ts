/** Small pieces the views share: times that say "5 minutes ago", copy buttons, revision tags, change counts. */
import { h } from './dom.ts';
import { formatBytes, formatRelative, formatSignedBytes, formatTime, plural } from './format.ts';
import type { Counts } from './changelog.ts';

/** A relative time ("3 hours ago") with the exact time on hover and for machines. */
export function when(iso: string | undefined, opts: { never?: string } = {}): HTMLElement | string {
  if (!iso) return opts.never ?? '';
  return h('time', { datetime: iso, title: formatTime(iso, { seconds: true }) }, formatRelative(iso));
}

/** A button that copies `text`; says "Copied" for a moment, or selects `select` when the clipboard is refused. */
export function copyButton(text: string, what: string, select?: () => Node | null): HTMLButtonElement {
  const label = 'Copy';
  const btn = h('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}`, title: `Copy ${what}` }, label);
  btn.addEventListener('click', async (e) => {
    e.preventDefault();
    e.stopPropagation();
    try {
      await navigator.clipboard.writeText(text);
      btn.textContent = 'Copied';
    } catch {
      const node = select?.();
      if (node) getSelection()?.selectAllChildren(node);
      btn.textContent = 'Press Ctrl+C';
    }
    setTimeout(() => (btn.textContent = label), 2000);
  });
  return btn;
}

/** A revision's short label as a tag, its full id in the tooltip. */
export function revTag(id: string, label: string, opts: { live?: boolean } = {}): HTMLElement {
  return h('span', { class: `rev-tag${opts.live ? ' live' : ''}`, title: `Revision ${id}`, 'data-rev': id }, label);
}

/** The full revision id, selectable, with a copy button. */
export function revId(id: string): HTMLElement {
  const code = h('code', null, id);
  return h('span', { class: 'rev-id' }, code, copyButton(id, `id ${id}`, () => code));
}

/**
 * `+3 ~2 −1 files, +48 KB`: files added, changed and removed, then the change in size. Zero
 * counts are left out; without counts (older events) the revision's totals are shown instead.
 */
export function changeSummary(c: { counts?: Counts; netBytes?: number; files?: number; size?: number }): HTMLElement {
  const parts: Node[] = [];
  if (c.counts) {
    const { added, changed, removed } = c.counts;
    const total = added + changed + removed;
    const chip = (n: number, cls: string, sign: string, word: string) =>
      n > 0 ? h('span', { class: `count ${cls}`, title: `${plural(n, 'file')} ${word}` }, `${sign}${n.toLocaleString('en')}`) : null;
    const chips = [chip(added, 'add', '+', 'added'), chip(changed, 'chg', '~', 'changed'), chip(removed, 'del', '−', 'removed')].filter((x): x is HTMLElement => x !== null);
    if (total === 0) parts.push(document.createTextNode('no file changed'));
    else {
      chips.forEach((x, i) => {
        if (i > 0) parts.push(document.createTextNode(' '));
        parts.push(x);
      });
      parts.push(document.createTextNode(total === 1 ? ' file' : ' files'));
      parts.push(h('span', { class: 'sr-only' }, ` (${[added && `${added} added`, changed && `${changed} changed`, removed && `${removed} removed`].filter(Boolean).join(', ')})`));
    }
  } else if (c.files !== undefined) {
    parts.push(document.createTextNode(plural(c.files, 'file')));
    if (c.size !== undefined) parts.push(document.createTextNode(`, ${formatBytes(c.size)}`));
  }
  // a new site without counts: its size already says how much it added
  if (c.netBytes !== undefined && !(c.counts === undefined && c.netBytes === c.size)) {
    if (parts.length) parts.push(document.createTextNode(', '));
    parts.push(h('span', { class: `bytes ${c.netBytes > 0 ? 'grow' : c.netBytes < 0 ? 'shrink' : ''}`, title: 'Change in size' }, formatSignedBytes(c.netBytes)));
  }
  return h('span', { class: 'change-summary' }, parts);
}

/**
 * A revision's permalink (spec §14, `Revision.url`): its own address, served while the revision
 * is kept, as a link that opens the site's host (never the portal) in a new tab.
 */
export function permalink(url: string | undefined, label: string): HTMLElement | null {
  if (!url || !/^https?:\/\//.test(url)) return null;
  return h(
    'span',
    { class: 'permalink' },
    'Permalink ',
    h('a', { href: url, target: '_blank', rel: 'noopener', title: `${label} at its own address, for as long as it is kept` }, url.replace(/^https?:\/\//, '').replace(/\/$/, '')),
  );
}
