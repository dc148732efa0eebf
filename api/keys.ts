import Router from '@koa/router';
import { CreateKeyBody, KeysQuery } from '../app/contract/key.ts';
import { parseInput, parseQuery } from '../app/contract/parse.ts';
import { issueKey } from '../app/keys/issue-key.ts';
import { listKeys } from '../app/keys/list-keys.ts';
import { revokeKey } from '../app/keys/revoke-key.ts';
import { requireUser } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';

/** API keys over HTTP (spec §5, admins). The token is in the creation response and nowhere else. */
export function keysRouter(api: ApiContext): Router {
  const r = new Router();
  r.get('/api/keys', async (ctx) => {
    const identity = await requireUser(api, ctx);
    ctx.body = await listKeys(api.deps, identity, parseQuery(KeysQuery, ctx.query));
  });
  r.post('/api/keys', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const created = await issueKey(api.deps, identity, async () => parseInput(CreateKeyBody, await readJson(ctx)));
    ctx.status = 201;
    ctx.body = created;
  });
  r.delete('/api/keys/:id', async (ctx) => {
    await revokeKey(api.deps, await requireUser(api, ctx), { id: ctx.params.id ?? '' });
    ctx.status = 204;
  });
  return r;
}
