/** The Compare tab: any two kept revisions, chosen in two lists, and the difference between them. */
import { describeError } from '../api.ts';
import { h, replace, stateLine } from '../dom.ts';
import { setQuery } from '../router.ts';
import type { Revision } from '../types.ts';
import { renderDiff } from './diff.ts';
import { revisionOption } from '../changelog.ts';
import type { TabContext } from './tab-context.ts';

export async function renderCompareTab(ctx: TabContext): Promise<void> {
  const { panel, site, me, signal } = ctx;
  replace(panel, stateLine('Loading revisions…'));
  let revisions: Revision[];
  let label: (id: string) => string;
  try {
    [revisions, label] = await Promise.all([ctx.data.revisions(), ctx.data.label()]);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(panel, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
    return;
  }
  if (signal.aborted) return;
  if (revisions.length < 2) {
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
  const known = (id: string | null) => (id && revisions.some((r) => r.id === id) ? id : undefined);
  const live = revisions.find((r) => r.current) ?? revisions[0];
  // Newest id first: what is live, and the revision published just before it.
  const byAge = [...revisions].sort((a, b) => (a.id < b.id ? 1 : -1));
  let to = known(params.get('to')) ?? live.id;
  // by default the change that led to the live revision: the newest one older than it (after a rollback there may be none)
  let from = known(params.get('from')) ?? (byAge.find((r) => r.id < to) ?? byAge.find((r) => r.id !== to))!.id;
  const missing = [params.get('from'), params.get('to')].filter((id) => id && !known(id));

  const select = (id: string, value: string) =>
    h('select', { id }, byAge.map((r) => h('option', { value: r.id, selected: r.id === value }, revisionOption(r, label(r.id)))));
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
    const onward = from < to; // ids are publish times: an older "from" reads as a change forward
    replace(heading, `What changed from ${label(from)} to ${label(to)}`, onward ? null : h('span', { class: 'muted small' }, ' (newer to older)'));
    void renderDiff(box, { site, from, to, label, signal: diffCtl.signal });
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
    missing.length ? h('p', { class: 'state error', role: 'alert' }, `Revision ${missing.join(' and ')} is no longer kept, so the comparison starts from the kept ones.`) : null,
    heading,
    box,
  );
  draw();
}
