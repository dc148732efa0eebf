/** Portal entry point: loads the signed-in user, draws the top bar and routes to a view. */
import './styles.css';
import { api, describeError, ApiError } from './api.ts';
import { h, replace } from './dom.ts';
import { parseRoute, startRouter, type Route } from './router.ts';
import { toastRegion } from './dialog.ts';
import type { Me } from './types.ts';
import type { ViewContext } from './view-context.ts';
import { renderSites } from './views/sites.ts';
import { renderSite } from './views/site.ts';
import { renderTrash } from './views/trash.ts';
import { renderKeys } from './views/keys.ts';
import { renderConnections } from './views/connections.ts';
import { renderServiceStorage } from './views/storage.ts';
import { renderActivity } from './views/activity.ts';
import { renderWebhooks } from './views/webhooks.ts';

const main = document.getElementById('main') as HTMLElement;
const topbar = document.getElementById('topbar') as HTMLElement;
let current: AbortController | undefined;
let lastPath = '';
let inPlace: ((r: Route) => boolean) | undefined;

function drawTopbar(me: Me | undefined): void {
  const route = parseRoute(location.pathname);
  const link = (href: string, text: string, active: boolean) =>
    h('a', { href, 'aria-current': active ? 'page' : null }, text);
  replace(
    topbar,
    h('a', { class: 'brand', href: '/' }, h('span', { class: 'logo', 'aria-hidden': 'true' }), 'Sites'),
    me &&
      h(
        'nav',
        { 'aria-label': 'Main' },
        link('/', 'Sites', route.name === 'sites' || route.name === 'site'),
        me.is_admin && link('/trash', 'Trash', route.name === 'trash'),
        me.is_admin && link('/storage', 'Storage', route.name === 'storage'),
        me.is_admin && link('/activity', 'Activity', route.name === 'activity'),
        me.is_admin && link('/webhooks', 'Webhooks', route.name === 'webhooks'),
        me.is_admin && link('/keys', 'API Keys', route.name === 'keys'),
        me.is_admin && me.mcp_enabled && link('/connections', 'Connections', route.name === 'connections'),
      ),
    // The docs are served by the service itself (/docs/, host/docs/site.ts): a full page load, not a portal route.
    h('a', { class: 'docs-link', href: '/docs/' }, 'Docs'),
    me &&
      h(
        'span',
        { class: 'whoami' },
        h('span', { class: 'user' }, me.user || 'signed in'),
        h('span', { class: `role ${me.is_admin ? 'admin' : ''}` }, me.is_admin ? 'Admin' : 'Viewer'),
      ),
  );
}

async function route(me: Me): Promise<void> {
  const r = parseRoute(location.pathname);
  if (inPlace?.(r)) return;
  inPlace = undefined;
  current?.abort();
  current = new AbortController();
  const signal = current.signal;
  const ctx: ViewContext = { me, main, signal, stay: (handler) => (inPlace = (next) => !signal.aborted && handler(next)) };
  drawTopbar(me);
  if (location.pathname !== lastPath) {
    lastPath = location.pathname;
    window.scrollTo(0, 0);
  }
  try {
    switch (r.name) {
      case 'sites':
        return await renderSites(ctx);
      case 'site':
        return await renderSite(ctx, r.path);
      case 'trash':
        return await renderTrash(ctx);
      case 'keys':
        return await renderKeys(ctx);
      case 'connections':
        return await renderConnections(ctx);
      case 'storage':
        return await renderServiceStorage(ctx);
      case 'activity':
        return await renderActivity(ctx);
      case 'webhooks':
        return await renderWebhooks(ctx, r.id);
      case 'notfound':
        document.title = 'Not found · Sites';
        replace(main, h('h1', null, 'Page not found'), h('p', null, 'There is no such page. ', h('a', { href: '/' }, 'Back to all sites')));
        return;
    }
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    replace(main, h('p', { class: 'state error', role: 'alert' }, describeError(err)));
  }
}

async function boot(): Promise<void> {
  drawTopbar(undefined);
  toastRegion();
  let me: Me;
  try {
    me = await api.me();
  } catch (err) {
    const msg = describeError(err);
    replace(
      main,
      h('h1', null, err instanceof ApiError && err.status === 401 ? 'Not signed in' : 'The portal cannot start'),
      h('p', { class: 'state error', role: 'alert' }, msg),
      h('button', { type: 'button', onclick: () => location.reload() }, 'Try again'),
    );
    return;
  }
  startRouter(() => void route(me));
  await route(me);
}

void boot();
