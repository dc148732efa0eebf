/** API Keys (admins): list with grants, expiry and last use; create with a grants editor; revoke. */
import { api, ApiError, describeError } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h, replace, stateLine, type Child } from '../dom.ts';
import { describeActor } from '../format.ts';
import type { ViewContext } from '../view-context.ts';
import { dataTable, grantList } from '../table.ts';
import { when } from '../widgets.ts';
import type { ApiKey, Grant } from '../types.ts';
import { grantsEditor } from './grants-editor.ts';

/** A key's status: active, expired, or revoked with when and by whom (older records may lack who). */
function status(k: ApiKey, expired: boolean): Child {
  if (k.revoked_at !== undefined) {
    const by = k.revoked_by ? ` by ${describeActor(k.revoked_by)}` : '';
    return [h('span', { class: 'badge muted' }, 'Revoked'), h('span', { class: 'status-detail muted' }, when(k.revoked_at), by)];
  }
  return expired ? h('span', { class: 'badge warn' }, 'Expired') : h('span', { class: 'badge ok' }, 'Active');
}

export async function renderKeys(ctx: ViewContext): Promise<void> {
  const { main, signal } = ctx;
  document.title = 'API Keys · Sites';
  const list = h('div', { class: 'keys-list' }, stateLine('Loading keys…'));
  const tokenBox = h('div', { class: 'token-box', hidden: true, tabindex: '-1' });
  const editor = grantsEditor();
  const nameInput = h('input', { id: 'key-name', type: 'text', required: true, autocomplete: 'off', maxlength: 200 });
  const adminBox = h('input', { id: 'key-admin', type: 'checkbox' });
  const expires = h('input', { id: 'key-expires', type: 'date', min: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) });
  const formError = h('p', { class: 'error', role: 'alert', hidden: true });
  adminBox.addEventListener('change', () => editor.setDisabled(adminBox.checked));

  const form = h(
    'form',
    { class: 'key-form', 'aria-labelledby': 'create-key-title', novalidate: true },
    h('h2', { id: 'create-key-title' }, 'Create a key'),
    h('p', { class: 'field' }, h('label', { for: 'key-name' }, 'Name'), nameInput),
    h('p', { class: 'field check' }, adminBox, h('label', { for: 'key-admin' }, 'Admin key (every capability on every site)')),
    editor.element,
    h('p', { class: 'field' }, h('label', { for: 'key-expires' }, 'Expires on (optional, 00:00 UTC; empty = never)'), expires),
    formError,
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create key')),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError.hidden = true;
    const fail = (msg: string) => {
      formError.textContent = msg;
      formError.hidden = false;
    };
    const name = nameInput.value.trim();
    if (!name) return fail('Give the key a name.');
    const admin = adminBox.checked;
    let grants: Grant[] = [];
    if (!admin) {
      const read = editor.read();
      if (typeof read === 'string') return fail(read);
      grants = read;
    }
    const body: Parameters<typeof api.createKey>[0] = { name, admin, grants };
    if (expires.value) body.expires_at = new Date(`${expires.value}T00:00:00Z`).toISOString();
    const submit = form.querySelector('button[type=submit]') as HTMLButtonElement;
    submit.disabled = true;
    try {
      const created = await api.createKey(body);
      showToken(created.name, created.key);
      form.reset();
      editor.reset();
      await load();
    } catch (err) {
      fail(describeError(err));
    } finally {
      submit.disabled = false;
    }
  });

  function showToken(name: string, token: string): void {
    const code = h('code', { id: 'new-token' }, token);
    const copy = h('button', { type: 'button', class: 'primary' }, 'Copy token');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(token);
        copy.textContent = 'Copied';
      } catch {
        // clipboard refused (permissions): select the text so Ctrl+C works
        getSelection()?.selectAllChildren(code);
        copy.textContent = 'Press Ctrl+C to copy';
      }
    });
    replace(
      tokenBox,
      h('h2', null, `Key “${name}” created`),
      h('p', null, 'Copy the token now: it is shown only this once and cannot be recovered.'),
      h('div', { class: 'token-line' }, code, copy),
      h('button', { type: 'button', class: 'link', onclick: () => (tokenBox.hidden = true) }, 'I have stored it, hide the token'),
    );
    tokenBox.hidden = false;
    tokenBox.focus();
  }

  async function revoke(key: ApiKey): Promise<void> {
    const ok = await confirmDialog({
      title: `Revoke key “${key.name}”?`,
      body: h('p', null, 'Anything using this key stops working at once. This cannot be undone.'),
      confirmLabel: 'Revoke',
      danger: true,
      action: () => api.revokeKey(key.id),
    });
    if (ok) {
      toast(`Key “${key.name}” was revoked.`);
      await load();
    }
  }

  async function load(): Promise<void> {
    try {
      const { keys } = await api.keys(signal);
      if (keys.length === 0) {
        replace(list, stateLine('No API keys yet. Create one with the form below, then give its token to a CI job or script: it publishes with an Authorization: Bearer header.'));
        return;
      }
      const now = Date.now();
      // Live keys first (newest first), then the revoked ones, greyed, most recently revoked first.
      const revoked = (k: ApiKey) => k.revoked_at !== undefined;
      const sorted = [...keys].sort((a, b) =>
        revoked(a) !== revoked(b) ? (revoked(a) ? 1 : -1) : revoked(a) ? b.revoked_at!.localeCompare(a.revoked_at!) : b.id - a.id,
      );
      replace(
        list,
        dataTable({
          caption: 'API keys',
          class: 'keys-table',
          columns: [
            { label: 'Name' },
            { label: 'Access' },
            { label: 'Created', class: 'nowrap' },
            { label: 'Expires', class: 'nowrap' },
            { label: 'Last used', class: 'nowrap' },
            { label: 'Status' },
            { label: 'Actions', srOnly: true },
          ],
          rows: sorted.map((k) => {
            const expired = k.expires_at !== undefined && Date.parse(k.expires_at) <= now;
            const gone = revoked(k);
            return {
              attrs: { 'data-key-id': String(k.id), 'data-key-name': k.name, 'data-status': gone ? 'revoked' : expired ? 'expired' : 'active', class: gone ? 'is-revoked' : null },
              cells: [
                [h('strong', null, k.name), h('span', { class: 'muted' }, ` #${k.id}`)],
                k.admin ? h('span', { class: 'badge admin' }, 'Admin') : grantList(k.grants),
                when(k.created_at),
                gone ? h('span', { class: 'muted', title: 'A revoked key no longer expires: it is already refused' }, '—') : k.expires_at ? when(k.expires_at) : 'Never',
                when(k.last_used_at, { never: 'Never' }),
                status(k, expired),
                gone ? null : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke key ${k.name}`, onclick: () => void revoke(k) }, 'Revoke'),
              ],
            };
          }),
        }),
      );
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      replace(list, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
      // not signed in or not an admin: the create form would only fail too
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) form.remove();
    }
  }

  replace(
    main,
    h('div', { class: 'page-head' }, h('h1', null, 'API Keys')),
    h('p', { class: 'muted' }, 'Keys let CI jobs and scripts publish through the ingest API. Only a hash of each token is stored.'),
    tokenBox,
    list,
    form,
  );
  await load();
}
