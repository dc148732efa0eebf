#!/usr/bin/env -S node --max-semi-space-size=1 --expose-gc
// Node flags (also in `npm start`, the Dockerfile and the tests' launcher): a 1 MiB young
// generation (--max-semi-space-size=1) is collected often, which frees the buffers a
// streaming upload leaves behind soon after they die; with V8's default (16 MiB) they
// piled up to ~50 MB of resident memory during a 100 MB publish. --expose-gc lets an upload
// ask for a young collection every 8 MiB (host/gc-hint.ts says why). Throughput was
// unchanged in the benchmarks.
//
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
      const line = `sites: running from the TypeScript sources (no compiled build: ${err.message ?? err})`;
      // The service's log may be JSON lines (SITES_LOG_FORMAT=json): so is this one then.
      const json = process.argv[2] === 'serve' && (process.env.SITES_LOG_FORMAT || '').toLowerCase() === 'json';
      process.stderr.write(json ? `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg: line })}\n` : `${line}\n`);
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('../host/cli/main.ts');
}

const { main } = await load();
// A command whose promise never settles would let Node exit with status 13 and say nothing
// (it happened to `sites publish` when the server refused an upload early): say it, exit 1.
let settled = false;
process.once('exit', () => {
  // 13 is Node's "unsettled top-level await"; a process.exit() elsewhere has said its own line.
  if (settled || process.exitCode !== 13) return;
  process.stderr.write('sites: internal error: the command stopped before it finished (please report this)\n');
  process.exitCode = 1;
});
const code = await main(process.argv.slice(2));
settled = true;
process.exitCode = code;
// A short command ends here even if a handle is still open; `serve` ends by itself after a
// clean shutdown, but a failed start must not linger on whatever it had opened.
if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);
