import type Router from '@koa/router';
import { buildOpenApiDocument, type OpenApiOptions } from './document.ts';

/** `GET /api/openapi.json` (spec §13): no authentication; generated on first use, then cached. */
export function mountOpenApi(router: Router, options: OpenApiOptions = {}): void {
  let body: string | undefined;
  router.get('/api/openapi.json', (ctx) => {
    body ??= JSON.stringify(buildOpenApiDocument(options));
    ctx.type = 'application/json';
    ctx.body = body;
  });
}
