#!/usr/bin/env -S node --max-semi-space-size=1 --max-old-space-size=512
// The diary MCP server, launched without npm: `node bin/diary.mjs` (stdio) or
// `node bin/diary.mjs --http 127.0.0.1:8090`. MCP hosts should launch this file: `npm run`
// prints its banner on stdout before the server starts, and in stdio mode stdout is the
// JSON-RPC stream (`npm run -s diary` suppresses the banner too).
//
// Node flags (also in `npm run diary`; a launcher of your own should pass them too, the
// HTTP server most of all): V8 sizes its heap by its limit. With the default one (derived
// from the machine's memory: 4 GB here) it let the garbage of 2025-era sessions (kept until
// evicted, then dropped) pile up to about four times the live heap, and its young generation
// grow to 32 MB: 185-190 MB resident after 5,000 sessions, against about 90 MB with
// --max-old-space-size=512 (still 25 times what the server keeps alive) and a 1 MB young
// generation (--max-semi-space-size=1). test/faults/diary-memory.test.ts checks it.
//
// Runs the server compiled to plain JavaScript (bin/build-server.mjs, rebuilt whenever a
// source file changed): loading the TypeScript through tsx costs a loader thread, about
// 28 MB of the process's memory. When the build cannot be written (a read-only install) or
// DIARY_FROM_SOURCE=1 is set, it loads the sources through tsx. Nothing here writes to stdout.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

if (process.env.DIARY_FROM_SOURCE !== '1') {
  let main;
  try {
    const { ensureDiaryBuild } = await import('./build-server.mjs');
    main = pathToFileURL(join(await ensureDiaryBuild(), 'main.js')).href;
  } catch (err) {
    process.stderr.write(`diary: running from the TypeScript sources (no compiled build: ${err.message ?? err})\n`);
  }
  if (main) await import(main);
  else await fromSource();
} else await fromSource();

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../mcp/diary/main.ts');
}
