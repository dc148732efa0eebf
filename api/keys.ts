import Router from '@koa/router';
import { issueKey, revokeKey } from '../app/keys/keys.ts';
import { NotFoundError } from '../domain/errors.ts';
import { requireAdmin } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { parseKeyInput } from './requests.ts';
import { CreateKeyBody, KeysQuery, type CreatedAPIKey, type KeysResponse } from './schemas/key.ts';
import { KeyIdParam } from './schemas/params.ts';
import { parseInput, parseQuery } from './schemas/parse.ts';
import { keyJson } from './site-json.ts';

/** API keys over HTTP (admin only). The token is in the creation response and nowhere else. */
export function keysRouter(api: ApiContext): Router {
  const r = new Router();
  r.get('/api/keys', async (ctx) => {
    await requireAdmin(api, ctx);
    const { revoked } = parseQuery(KeysQuery, ctx.query);
    const keys = await api.deps.readModel.listKeys();
    // A revoked key is listed with when it was revoked; one whose document predates that record
    // (a MongoDB read model not yet replayed) is left out as before, never shown as if live.
    ctx.body = { keys: keys.filter((k) => !k.revoked || (revoked && k.revokedAt !== undefined)).map(keyJson) } satisfies KeysResponse;
  });
  r.post('/api/keys', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const body = parseInput(CreateKeyBody, await readJson(ctx));
    const { key, token } = await issueKey(api.deps, identity.actor, parseKeyInput(body));
    ctx.status = 201;
    ctx.body = { ...keyJson(key), key: token } satisfies CreatedAPIKey;
  });
  r.delete('/api/keys/:id', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const id = KeyIdParam.safeParse(ctx.params.id);
    if (!id.success) throw new NotFoundError(`no key ${ctx.params.id}`);
    await revokeKey(api.deps, identity.actor, id.data);
    ctx.status = 204;
  });
  return r;
}
