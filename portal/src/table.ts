/** Data tables shared by the admin views (API keys, MCP connections): one markup, one phone layout. */
import { h, type Attrs, type Child } from './dom.ts';
import { describeGrant } from './format.ts';
import type { Grant } from './types.ts';

/** A column: its header, an optional class for every cell, and whether the header is for screen readers only (action buttons). */
export type Column = { label: string; class?: string; srOnly?: boolean };

/** A row: attributes of the `<tr>` (data-* for tests and scripts) and one cell content per column. */
export type Row = { attrs?: Attrs; cells: Child[] };

/**
 * A scrollable table with a screen-reader caption. Each cell carries its column's label in
 * `data-label`, so below 600 px the rows stack as cards that still say what each value is.
 */
export function dataTable(opts: { caption: string; class: string; columns: Column[]; rows: Row[] }): HTMLElement {
  const { columns } = opts;
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: `${opts.class} stack-table` },
      h('caption', { class: 'sr-only' }, opts.caption),
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.class }, c.srOnly ? h('span', { class: 'sr-only' }, c.label) : c.label)))),
      h(
        'tbody',
        null,
        opts.rows.map((r) =>
          h('tr', r.attrs ?? null, r.cells.map((cell, i) => h('td', { class: columns[i]?.class, 'data-label': columns[i]?.srOnly ? null : columns[i]?.label }, cell))),
        ),
      ),
    ),
  );
}

/** Grants in words, one per line: "publish, rollback on group docs". */
export function grantList(grants: readonly Grant[]): HTMLElement {
  return h('ul', { class: 'grants' }, grants.map((g) => h('li', null, describeGrant(g))));
}
