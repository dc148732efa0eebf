/** MCP connections (admins): AI clients a person approved, with their grants; revoke one. */
import { api, describeError } from '../api.ts';
import { confirmDialog, toast } from '../dialog.ts';
import { h, replace, stateLine } from '../dom.ts';
import { formatRelative, formatTime, plural } from '../format.ts';
import type { ViewContext } from '../view-context.ts';
import { setQuery } from '../router.ts';
import { dataTable, grantList } from '../table.ts';
import type { Connection } from '../types.ts';
import { when } from '../widgets.ts';

/** The status of a connection in words, with a badge class for its colour. */
function status(c: Connection): { text: string; badge: string; detail?: string } {
  if (c.revoked_at) return { text: 'Revoked', badge: 'warn', detail: [formatRelative(c.revoked_at), c.revoked_reason].filter(Boolean).join(' · ') };
  return { text: 'Active', badge: 'ok' };
}

const isRevoked = (c: Connection): boolean => c.revoked_at !== undefined;

export async function renderConnections(ctx: ViewContext): Promise<void> {
  const { main, signal, me } = ctx;
  document.title = 'Connections · Sites';
  const head = h('div', { class: 'page-head' }, h('h1', null, 'MCP Connections'));
  if (!me.mcp_enabled) {
    replace(main, head, h('p', { class: 'state', role: 'status' }, 'The MCP connector is turned off on this service (SITES_MCP_ENABLED=false), so there are no connections to manage.'));
    return;
  }
  const mcpUrl = `${location.origin}/mcp`;
  const list = h('div', { class: 'connections-list' }, stateLine('Loading connections…'));
  const showRevoked = h('input', { id: 'show-revoked', type: 'checkbox', checked: new URLSearchParams(location.search).get('revoked') === '1' });
  const revokedLabel = h('label', { for: 'show-revoked' }, 'Show revoked connections');
  const filter = h('p', { class: 'field check', hidden: true }, showRevoked, revokedLabel);
  let all: Connection[] = [];
  showRevoked.addEventListener('change', () => {
    setQuery({ revoked: showRevoked.checked ? '1' : undefined });
    draw();
  });

  async function revoke(c: Connection): Promise<void> {
    const ok = await confirmDialog({
      title: `Revoke connection “${c.client_name}”?`,
      body: [
        h('p', null, `Approved by ${c.user} on ${formatTime(c.created_at)} for: `),
        grantList(c.grants),
        h('p', null, 'Its access and refresh tokens are refused from the next request on. To connect again, someone has to approve the client anew. This cannot be undone.'),
      ],
      confirmLabel: 'Revoke',
      danger: true,
      action: () => api.revokeConnection(c.id),
    });
    if (ok) {
      toast(`Connection “${c.client_name}” was revoked.`);
      await load();
    }
  }

  function draw(): void {
    const revokedCount = all.filter(isRevoked).length;
    filter.hidden = revokedCount === 0;
    revokedLabel.textContent = `Show revoked connections (${revokedCount})`;
    const shown = showRevoked.checked ? all : all.filter((c) => !isRevoked(c));
    if (shown.length === 0) {
      replace(
        list,
        stateLine(
          all.length === 0
            ? `No MCP connections yet. An AI client connects when it is added as a remote MCP server with the URL ${mcpUrl} and a person approves it on the consent screen.`
            : `No active connections. ${plural(revokedCount, 'revoked connection')} hidden.`,
        ),
      );
      return;
    }
    replace(
      list,
      dataTable({
        caption: 'MCP connections',
        class: 'connections-table',
        columns: [
          { label: 'Client' },
          { label: 'Approved by' },
          { label: 'Access' },
          { label: 'Created', class: 'nowrap' },
          { label: 'Last used', class: 'nowrap' },
          { label: 'Expires', class: 'nowrap' },
          { label: 'Status' },
          { label: 'Actions', srOnly: true },
        ],
        rows: shown.map((c) => {
          const s = status(c);
          return {
            attrs: { 'data-connection-id': c.id, 'data-client-name': c.client_name, 'data-status': s.text.toLowerCase() },
            cells: [
              [h('strong', null, c.client_name), ' ', h('span', { class: 'muted', title: `connection ${c.id}` }, `#${c.id.slice(0, 8)}`)],
              c.user,
              grantList(c.grants),
              when(c.created_at),
              when(c.last_used_at, { never: 'Never' }),
              isRevoked(c) ? h('span', { class: 'muted', title: 'A revoked connection does not expire: it is already refused' }, '—') : when(c.expires_at),
              [h('span', { class: `badge ${s.badge}` }, s.text), s.detail ? h('span', { class: 'status-detail muted' }, s.detail) : null],
              isRevoked(c)
                ? null
                : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke connection ${c.client_name}`, onclick: () => void revoke(c) }, 'Revoke'),
            ],
          };
        }),
      }),
    );
  }

  async function load(): Promise<void> {
    try {
      all = (await api.connections(signal)).connections;
      draw();
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      filter.hidden = true;
      replace(list, h('p', { class: 'state error', role: 'alert' }, describeError(err)), h('button', { type: 'button', onclick: () => void retry() }, 'Try again'));
    }
  }

  async function retry(): Promise<void> {
    replace(list, stateLine('Loading connections…'));
    await load();
  }

  replace(
    main,
    head,
    h(
      'p',
      { class: 'muted' },
      'AI clients connected through the MCP connector at ',
      h('code', null, mcpUrl),
      '. Each one acts only within the sites and capabilities the approving person granted; only hashes of their tokens are stored.',
    ),
    filter,
    list,
  );
  await load();
}
