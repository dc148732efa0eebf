import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './root.ts';

export type ClientBundle = { readonly version: string; readonly code: string };

const ENTRY = join(projectRoot, 'client', 'main.ts');
const PLACEHOLDER = '__SITES_SERVED_FROM__';

/**
 * The publishing client as one dependency-free ES module (client/ bundled by esbuild, the
 * same source as `sites publish`). Its first line names it and its version: the package's
 * version and a digest of the bundle, so two different builds never share a version.
 */
export async function buildClient(): Promise<ClientBundle> {
  const { build } = await import('esbuild');
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const once = async (version: string) => {
    const out = await build({
      entryPoints: [ENTRY],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: false,
      legalComments: 'none',
      define: { CLIENT_VERSION: JSON.stringify(version) },
      banner: { js: `// sites publishing client ${version} — node sites.mjs publish DIR --site GROUP/SLUG (needs Node >= 20; SITES_URL, SITES_KEY)` },
      logLevel: 'silent',
    });
    return out.outputFiles[0]!.text;
  };
  const draft = await once(pkg.version);
  const version = `${pkg.version}+${createHash('sha256').update(draft).digest('hex').slice(0, 8)}`;
  return { version, code: await once(version) };
}

/** The bundle as served from `origin`: it publishes there unless told otherwise. */
export function servedClient(bundle: ClientBundle, origin: string): string {
  return bundle.code.replace(JSON.stringify(PLACEHOLDER), JSON.stringify(origin));
}

/**
 * `GET /cli/sites.mjs` on the apex: the client, no sign-in needed (it holds no secret; the
 * key comes from the CI job). Built on first request and kept; an ETag of what is sent.
 */
export function clientRoute(origin: () => string): (ctx: import('koa').Context, next: import('koa').Next) => Promise<void> {
  let bundle: Promise<ClientBundle> | undefined;
  return async (ctx, next) => {
    if (ctx.path !== '/cli/sites.mjs' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    bundle ??= buildClient().catch((err: unknown) => {
      bundle = undefined;
      throw err;
    });
    const body = servedClient(await bundle, origin());
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'public, max-age=300, must-revalidate');
    ctx.type = 'text/javascript; charset=utf-8';
    if (ctx.get('if-none-match').split(',').some((t) => t.trim() === etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  };
}
