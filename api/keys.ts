import Router from '@koa/router';
import { issueKey, revokeKey } from '../domain/commands/keys.ts';
import { NotFoundError, ValidationError } from '../domain/errors.ts';
import { requireAdmin } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { keyJson } from './site-json.ts';

/** API keys over HTTP (admin only). The token is in the creation response and nowhere else. */
export function keysRouter(api: ApiContext): Router {
  const r = new Router();
  r.get('/api/keys', async (ctx) => {
    await requireAdmin(api, ctx);
    const keys = await api.deps.readModel.listKeys();
    ctx.body = { keys: keys.filter((k) => !k.revoked).map(keyJson) };
  });
  r.post('/api/keys', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const body = await readJson(ctx);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('the body must be a JSON object');
    const { key, token } = await issueKey(api.deps, identity.actor, body as Record<string, unknown> as never);
    ctx.status = 201;
    ctx.body = { ...keyJson(key), key: token };
  });
  r.delete('/api/keys/:id', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const id = ctx.params.id!;
    if (!/^\d+$/.test(id)) throw new NotFoundError(`no key ${id}`);
    await revokeKey(api.deps, identity.actor, Number(id));
    ctx.status = 204;
  });
  return r;
}
