/**
 * The Compare tab: any two kept revisions, or a preview (spec §14, `preview:<name>`) and a
 * revision, chosen in two lists, and the difference between them. "Compare with live" on a
 * preview opens it here with the live revision on the left.
 */
import { describeError } from '../api.ts';
import { h, replace, stateLine } from '../dom.ts';
import { setQuery } from '../router.ts';
import type { Preview, Revision } from '../types.ts';
import { renderDiff } from './diff.ts';
import { revisionOption } from '../changelog.ts';
import { formatBytes, formatTime, plural } from '../format.ts';
import { previewRef } from './previews.ts';
import type { TabContext } from './tab-context.ts';

export async function renderCompareTab(ctx: TabContext): Promise<void> {
  const { panel, site, me, signal } = ctx;
  replace(panel, stateLine('Loading revisions…'));
  let revisions: Revision[];
  let revLabel: (id: string) => string;
  let previews: Preview[];
  try {
    [revisions, revLabel, previews] = await Promise.all([ctx.data.revisions(), ctx.data.label(), ctx.data.previews()]);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(panel, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return;
  }
  if (signal.aborted) return;
  const byRef = new Map(previews.map((p) => [previewRef(p.name), p]));
  const label = (id: string) => {
    const p = byRef.get(id);
    return p ? `preview ${p.name}` : revLabel(id);
  };
  const previewUrls = new Map([...byRef].map(([ref, p]) => [ref, p.url]));
  if (revisions.length < 2 && previews.length === 0) {
    replace(
      panel,
      h(
        'p',
        { class: 'state', role: 'status' },
        me.versioning_enabled
          ? 'Only one revision is kept so far, so there is nothing to compare yet. The next publish keeps this one, and then the two can be compared here.'
          : 'Versioning is off on this service, so only the live revision is kept and there is nothing to compare it with.',
      ),
    );
    return;
  }

  const params = new URLSearchParams(location.search);
  const live = revisions.find((r) => r.current) ?? revisions[0];
  // `current` (a link from elsewhere) is the live revision.
  const known = (id: string | null) => (id === 'current' ? live.id : id && (revisions.some((r) => r.id === id) || byRef.has(id)) ? id : undefined);
  // Newest id first: what is live, and the revision published just before it.
  const byAge = [...revisions].sort((a, b) => (a.id < b.id ? 1 : -1));
  let to = known(params.get('to')) ?? live.id;
  // by default the change that led to the live revision: the newest one older than it (after a rollback there may be none)
  let from = known(params.get('from')) ?? (byRef.has(to) ? live : (byAge.find((r) => r.id < to) ?? byAge.find((r) => r.id !== to) ?? live)).id;
  const missing = [params.get('from'), params.get('to')].filter((id) => id && !known(id));

  const previewOption = (p: Preview, value: string) =>
    h('option', { value: previewRef(p.name), selected: previewRef(p.name) === value }, `preview ${p.name} · ${formatTime(p.updated_at, { seconds: true })} · ${formatBytes(p.size)} · ${plural(p.files, 'file')}`);
  const select = (id: string, value: string) =>
    h(
      'select',
      { id },
      previews.length
        ? [
            h('optgroup', { label: 'Revisions' }, byAge.map((r) => h('option', { value: r.id, selected: r.id === value }, revisionOption(r, label(r.id))))),
            h('optgroup', { label: 'Previews' }, previews.map((p) => previewOption(p, value))),
          ]
        : byAge.map((r) => h('option', { value: r.id, selected: r.id === value }, revisionOption(r, label(r.id)))),
    );
  const fromSelect = select('compare-from', from);
  const toSelect = select('compare-to', to);
  const swap = h('button', { type: 'button', class: 'swap', title: 'Swap the two revisions' }, h('span', { 'aria-hidden': 'true' }, '⇄ '), 'Swap');
  const heading = h('h2', { class: 'compare-title' });
  const box = h('div', { class: 'diff', 'aria-live': 'polite' });
  let diffCtl: AbortController | undefined;
  signal.addEventListener('abort', () => diffCtl?.abort());

  function draw(): void {
    setQuery({ from, to });
    fromSelect.value = from;
    toSelect.value = to;
    diffCtl?.abort();
    if (from === to) {
      replace(heading, 'Choose two different revisions');
      replace(box, h('p', { class: 'state', role: 'status' }, 'Both lists name the same revision. Pick another one on either side.'));
      return;
    }
    diffCtl = new AbortController();
    // ids are publish times: an older "from" reads as a change forward; a preview is a change proposed to what is live
    const onward = byRef.has(to) || (!byRef.has(from) && from < to);
    replace(heading, `What changed from ${label(from)} to ${label(to)}`, onward ? null : h('span', { class: 'muted small' }, ' (newer to older)'));
    void renderDiff(box, { site, from, to, label, signal: diffCtl.signal, previewUrls });
  }

  fromSelect.addEventListener('change', () => {
    from = fromSelect.value;
    draw();
  });
  toSelect.addEventListener('change', () => {
    to = toSelect.value;
    draw();
  });
  swap.addEventListener('click', () => {
    [from, to] = [to, from];
    draw();
  });

  replace(
    panel,
    h(
      'div',
      { class: 'compare-bar' },
      h('p', { class: 'field' }, h('label', { for: 'compare-from' }, 'From'), fromSelect),
      h('span', { class: 'compare-arrow', 'aria-hidden': 'true' }, '→'),
      h('p', { class: 'field' }, h('label', { for: 'compare-to' }, 'To'), toSelect),
      swap,
    ),
    missing.length ? h('p', { class: 'state error', role: 'alert' }, `${missing.map((id) => (id!.startsWith('preview:') ? `Preview ${id!.slice(8)} is no longer online` : `Revision ${id} is no longer kept`)).join(', and ')}, so the comparison starts from what is kept.`) : null,
    heading,
    box,
  );
  draw();
}
