import type { Context, Next } from 'koa';
import type { Actor } from '../domain/events.ts';
import { fullPath, siteAddress } from '../domain/paths.ts';
import type { AuthState, Authentication } from './auth.ts';
import type { AuditEntry } from './audit-entry.ts';
import type { ApiContext } from './context.ts';
import { peerAddress } from './peer-address.ts';

/** What a route may add about its write, when the request and the answer do not say it. */
/** `action`: when the path alone cannot tell (`…/docs/previews/pr-7` removes a preview or unpublishes a site). */
export type WriteNote = { site?: string; revision?: string; target?: string; action?: string };

type WriteState = AuthState & { write?: WriteNote };

/** Adds to the request's write note (`ctx.state.write`), read by `writeLog` once the answer is ready. */
export function noteWrite(ctx: Pick<Context, 'state'>, note: WriteNote): void {
  const state = ctx.state as WriteState;
  state.write = { ...state.write, ...note };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type Named = { readonly method: string; readonly path: RegExp; readonly action: string; readonly captures?: 'site' | 'key' | 'deploy' | 'connection' };

/**
 * The apex's writes by name (spec §4, §5, §10, §13). The first match wins; its capture is
 * the site path or the id the write acts on.
 */
const ACTIONS: readonly Named[] = [
  { method: 'POST', path: /^\/(?:ingest|api)\/sites\/?$/, action: 'publish' },
  { method: 'POST', path: /^\/(?:ingest|api)\/sites\/(.+)\/rollback$/, action: 'rollback', captures: 'site' },
  { method: 'POST', path: /^\/ingest\/sites\/(.+)\/restore$/, action: 'restore', captures: 'site' },
  { method: 'POST', path: /^\/api\/sites\/deleted\/(.+)$/, action: 'restore', captures: 'site' },
  { method: 'POST', path: /^\/ingest\/sites\/(.+)\/purge$/, action: 'purge', captures: 'site' },
  { method: 'DELETE', path: /^\/api\/sites\/deleted\/(.+)$/, action: 'purge', captures: 'site' },
  // Before unpublish: `…/domains/<name with a dot>` is a custom domain, never a site path (no label holds a dot).
  { method: 'PUT', path: /^\/api\/sites\/(.+)\/domains\/[^/]*\.[^/]*$/, action: 'domain.attach', captures: 'site' },
  { method: 'DELETE', path: /^\/api\/sites\/(.+)\/domains\/[^/]*\.[^/]*$/, action: 'domain.detach', captures: 'site' },
  { method: 'PUT', path: /^\/ingest\/sites\/(.+)\/previews\/[^/]+$/, action: 'preview.publish', captures: 'site' },
  { method: 'DELETE', path: /^\/(?:ingest|api)\/sites\/(.+)\/previews\/[^/]+$/, action: 'preview.remove', captures: 'site' },
  { method: 'PATCH', path: /^\/(?:ingest|api)\/sites\/(.+)$/, action: 'patch', captures: 'site' },
  { method: 'DELETE', path: /^\/(?:ingest|api)\/sites\/(.+)$/, action: 'unpublish', captures: 'site' },
  { method: 'POST', path: /^\/(?:ingest|api)\/deploys\/?$/, action: 'deploy.create' },
  { method: 'PUT', path: /^\/(?:ingest|api)\/deploys\/([^/]+)\/files\/[^/]+$/, action: 'deploy.upload', captures: 'deploy' },
  { method: 'POST', path: /^\/(?:ingest|api)\/deploys\/([^/]+)\/publish$/, action: 'deploy.publish', captures: 'deploy' },
  { method: 'POST', path: /^\/api\/keys\/?$/, action: 'key.create' },
  { method: 'DELETE', path: /^\/api\/keys\/([^/]+)$/, action: 'key.revoke', captures: 'key' },
  { method: 'DELETE', path: /^\/api\/mcp\/connections\/([^/]+)$/, action: 'connection.revoke', captures: 'connection' },
  { method: 'POST', path: /^\/mcp\/oauth\/register$/, action: 'oauth.register' },
  { method: 'POST', path: /^\/mcp\/oauth\/authorize$/, action: 'oauth.consent' },
  { method: 'POST', path: /^\/mcp\/oauth\/token$/, action: 'oauth.token' },
];

/** How an actor appears in the log. */
export function actorFields(actor: Actor | undefined): { actor: string; actor_name?: string } {
  switch (actor?.kind) {
    case undefined:
      return { actor: 'anonymous' };
    case 'key':
      return { actor: `key:${actor.id}`, actor_name: actor.name };
    case 'connection':
      return { actor: `connection:${actor.id}`, actor_name: actor.user ? `${actor.name} (${actor.user})` : actor.name };
    case 'user':
      return { actor: `user:${actor.name}` };
    case 'system':
      return { actor: `system:${actor.name}` };
    default:
      return actor satisfies never;
  }
}

/** Who the request authenticated as: a valid key, else the signed-in person, else nobody. */
function requestActor(auth: Authentication | undefined): Actor | undefined {
  if (auth?.key && 'identity' in auth.key) return auth.key.identity.actor;
  if (auth?.user) return { kind: 'user', name: auth.user };
  return undefined;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Logs every write on the apex (one line: actor, action, site, revision, outcome) and every
 * other request refused with 401/403 (status, route, client address), once the answer is
 * known. Outermost apex middleware, so the status is the one sent. MCP tool calls are
 * logged by the connector (mcp/sites/audit.ts); their transport requests only when refused.
 */
export function writeLog(api: Pick<ApiContext, 'config' | 'hooks'>) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = Date.now();
    // Read now: once a body is cut off or the client leaves, the request no longer has its socket.
    const client = peerAddress(api, ctx);
    try {
      await next();
    } finally {
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      const write = !SAFE_METHODS.has(ctx.method) && ctx.path !== '/mcp';
      if (write || status === 401 || status === 403) {
        try {
          api.hooks.audit(entryOf(ctx, write, status, client, Date.now() - started));
        } catch (err) {
          api.hooks.log.error('could not log a request', { error: String(err) });
        }
      }
    }
  };
}

function entryOf(ctx: Context, write: boolean, status: number, client: string, ms: number): AuditEntry {
  const state = ctx.state as WriteState;
  const note = state.write ?? {};
  const named = ACTIONS.find((a) => a.method === ctx.method && a.path.test(ctx.path));
  const captured = named?.captures ? named.path.exec(ctx.path)?.[1] : undefined;
  const body = ctx.respond !== false && typeof ctx.body === 'object' && ctx.body !== null && !Buffer.isBuffer(ctx.body) ? (ctx.body as Record<string, unknown>) : {};
  const group = typeof body.group === 'string' ? body.group : undefined;
  const slug = text(body.slug);
  const answered = slug !== undefined && group !== undefined ? (group ? `${group}/${slug}` : slug) : undefined;
  const site = note.site ?? answered ?? (named?.captures === 'site' ? captured : undefined);
  const target =
    note.target ??
    (named?.captures && named.captures !== 'site' && captured ? `${named.captures}:${captured}` : undefined) ??
    (named?.action === 'key.create' && typeof body.id === 'number' ? `key:${body.id}` : undefined);
  const revision = note.revision ?? text(body.revision);
  const failed = status >= 400;
  // API errors are {error: sentence, code}; OAuth errors {error: code, error_description}.
  const code = failed ? (text(body.code) ?? (text(body.error_description) ? text(body.error) : undefined)) : undefined;
  const reason = failed ? (text(body.code) ? text(body.error) : text(body.error_description)) : undefined;
  return {
    kind: write ? 'write' : 'denied',
    ...actorFields(requestActor(state.auth)),
    action: note.action ?? named?.action ?? `${ctx.method} ${ctx.path}`,
    ...(site ? { site } : {}),
    ...(revision ? { revision } : {}),
    ...(body.unchanged === true ? { unchanged: true as const } : {}),
    ...(target ? { target } : {}),
    outcome: status >= 500 ? 'failed' : failed ? 'refused' : 'ok',
    status,
    ...(code ? { code } : {}),
    ...(reason ? { reason } : {}),
    method: ctx.method,
    route: ctx.path,
    client,
    ms,
  };
}

/**
 * The site a publish's meta names, for the log, once its labels are valid: known before the
 * use case checks the capability, so a refused publish is logged with the site it tried.
 */
export function noteTarget(meta: { readonly group?: string | null; readonly slug: string }, note: (site: string) => void): void {
  try {
    note(fullPath(siteAddress(meta.group ?? '', meta.slug)));
  } catch {
    // Not a site path: the use case answers 400, and the log has no site to name.
  }
}
