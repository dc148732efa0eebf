#!/usr/bin/env node
// The `sites` command. Runs the service compiled to plain JavaScript (bin/build-server.mjs,
// rebuilt whenever a source file changed); when that cannot be written (a read-only
// install) or SITES_FROM_SOURCE=1 is set, it loads the TypeScript sources through tsx.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

async function load() {
  if (process.env.SITES_FROM_SOURCE !== '1') {
    try {
      const { ensureServerBuild } = await import('./build-server.mjs');
      return await import(pathToFileURL(join(await ensureServerBuild(), 'main.js')).href);
    } catch (err) {
      process.stderr.write(`sites: running from the TypeScript sources (no compiled build: ${err.message ?? err})\n`);
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('../host/cli/main.ts');
}

const { main } = await load();
const code = await main(process.argv.slice(2));
process.exitCode = code;
if (process.argv[2] !== 'serve') process.exit(code);
