/** The grants editor of the key form: target (all sites, a group, one site) and capabilities per grant. */
import { h } from '../dom.ts';
import { CAPABILITIES, type Capability, type Grant } from '../types.ts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
let seq = 0;

type Row = { el: HTMLElement; read: () => Grant | string; setDisabled: (d: boolean) => void };

function grantRow(onRemove: (row: Row) => void): Row {
  const id = `grant-${++seq}`;
  const scope = h(
    'select',
    { id: `${id}-scope` },
    h('option', { value: 'all' }, 'All sites'),
    h('option', { value: 'group', selected: true }, 'A group'),
    h('option', { value: 'site' }, 'One site'),
  );
  const target = h('input', { id: `${id}-target`, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'docs' });
  const targetLabel = h('label', { for: `${id}-target` }, 'Group');
  const targetField = h('p', { class: 'field' }, targetLabel, target);
  const boxes = CAPABILITIES.map((c) => {
    const box = h('input', { type: 'checkbox', id: `${id}-${c}`, value: c, checked: c === 'publish' });
    // `preview` alone is the key for CI jobs that build untrusted pull requests (spec §14): say what it cannot do
    const hint = c === 'preview' ? 'Publish and remove previews only, never the live site (publish includes it)' : null;
    return { c, box, el: h('span', { class: 'check', title: hint }, box, h('label', { for: `${id}-${c}` }, c)) };
  });
  const remove = h('button', { type: 'button', class: 'link' }, 'Remove this grant');
  const syncScope = () => {
    targetField.hidden = scope.value === 'all';
    targetLabel.textContent = scope.value === 'site' ? 'Site (group/slug, or slug for a flat site)' : 'Group (e.g. docs or team/docs)';
    target.placeholder = scope.value === 'site' ? 'docs/app' : 'docs';
  };
  scope.addEventListener('change', syncScope);
  syncScope();
  const el = h(
    'fieldset',
    { class: 'grant' },
    h('legend', null, 'Grant'),
    h('p', { class: 'field' }, h('label', { for: `${id}-scope` }, 'Applies to'), scope),
    targetField,
    h('fieldset', { class: 'caps' }, h('legend', null, 'Capabilities'), boxes.map((b) => b.el)),
    remove,
  );
  const row: Row = {
    el,
    read() {
      const permissions = boxes.filter((b) => b.box.checked).map((b) => b.c as Capability);
      if (permissions.length === 0) return 'Each grant needs at least one capability.';
      if (scope.value === 'all') return { kind: 'group', target: '', permissions };
      const t = target.value.trim().replace(/^\/+|\/+$/g, '');
      const labels = t.split('/');
      if (t === '' || !labels.every((l) => LABEL.test(l))) {
        return `“${t || '(empty)'}” is not a valid ${scope.value === 'site' ? 'site path' : 'group'}: use lowercase letters, digits and dashes, separated by /.`;
      }
      if (scope.value === 'site') return { kind: 'site', target: t, permissions };
      return { kind: 'group', target: t, permissions };
    },
    setDisabled(d) {
      el.toggleAttribute('disabled', d);
    },
  };
  remove.addEventListener('click', () => onRemove(row));
  return row;
}

/** A list of grant rows with "Add a grant"; `read` returns the grants or an error sentence. */
export function grantsEditor(): { element: HTMLElement; read: () => Grant[] | string; reset: () => void; setDisabled: (d: boolean) => void } {
  let rows: Row[] = [];
  const list = h('div', { class: 'grant-rows' });
  const add = h('button', { type: 'button' }, 'Add a grant');
  const element = h('fieldset', { class: 'grants-editor' }, h('legend', null, 'Grants'), list, add);
  const addRow = () => {
    const row = grantRow((r) => {
      rows = rows.filter((x) => x !== r);
      r.el.remove();
    });
    rows.push(row);
    list.append(row.el);
  };
  addRow();
  add.addEventListener('click', addRow);
  return {
    element,
    read() {
      if (rows.length === 0) return 'Add at least one grant, or make it an admin key.';
      const out: Grant[] = [];
      for (const r of rows) {
        const g = r.read();
        if (typeof g === 'string') return g;
        out.push(g);
      }
      return out;
    },
    reset() {
      rows.forEach((r) => r.el.remove());
      rows = [];
      addRow();
      element.removeAttribute('disabled');
    },
    setDisabled(d) {
      element.toggleAttribute('disabled', d);
    },
  };
}
