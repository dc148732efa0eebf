#!/usr/bin/env node
// Compiles a service's TypeScript into plain ES modules with esbuild: the publishing
// service (host/cli/main.ts and everything it imports) under .build/<fingerprint>/, the
// diary MCP server (mcp/diary/main.ts) under .build/diary/<fingerprint>/. `bin/sites.mjs`
// and `bin/diary.mjs` call `ensureServerBuild()` / `ensureDiaryBuild()` on every start; the
// fingerprint covers every source file's path, size and mtime, so an edited file means a
// fresh build (about a third of a second) and an unchanged tree means none. Running
// compiled code instead of loading the sources through tsx saves its loader thread: about
// 28 MB of resident memory (40 % of the diary server's at start), and start-up time.
//
// Run directly (`node bin/build-server.mjs`, `--diary` for the diary) to build ahead of
// time, e.g. in a container image.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const TARGETS = {
  // client/: `sites publish` runs the publishing client (host/cli/publish.ts imports it).
  // webhook-lanes: the webhook sender's worker thread (host/webhooks/worker-lanes.ts starts it).
  server: {
    sourceDirs: ['domain', 'projections', 'app', 'api', 'host', 'mcp', 'client'],
    entries: { main: join(root, 'host', 'cli', 'main.ts'), 'webhook-lanes': join(root, 'host', 'webhooks', 'lane-worker.ts') },
    builds: join(root, '.build'),
  },
  // A separate service that imports nothing of the publishing service (.dependency-cruiser.cjs).
  diary: { sourceDirs: [join('mcp', 'diary')], entries: { main: join(root, 'mcp', 'diary', 'main.ts') }, builds: join(root, '.build', 'diary') },
};

/**
 * Builds other than the current one are removed once they are this old. A service started
 * from an older build may still load a lazy chunk from it (the MCP connector on its first
 * request), so they are kept a week, not removed at once.
 */
const STALE_BUILD_MS = 7 * 24 * 60 * 60 * 1000;
/** What a build folder (or an abandoned temp folder) is called: nothing else in `builds` is touched. */
const BUILD_NAME = /^(?:[0-9a-f]{16}|tmp-\d+-[0-9a-f]{8})$/;

/** Hash of every source file's path, size and mtime (and of this script). */
function fingerprint(sourceDirs) {
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|mts|mjs|js|json)$/.test(entry.name)) {
        const info = statSync(path);
        hash.update(`${relative(root, path)}\0${info.size}\0${info.mtimeMs}\n`);
      }
    }
  };
  for (const dir of sourceDirs) if (existsSync(join(root, dir))) visit(join(root, dir));
  const self = statSync(fileURLToPath(import.meta.url));
  hash.update(`build-server\0${self.size}\0${self.mtimeMs}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The folder holding the compiled `main.js` for the current sources, building it when
 * missing. Several processes may start at once: each builds into its own temp folder
 * and renames it into place; the first rename wins and the others use its result.
 */
async function ensureBuild({ sourceDirs, entries, builds }) {
  const dir = join(builds, fingerprint(sourceDirs));
  if (existsSync(join(dir, 'main.js'))) return dir;
  mkdirSync(builds, { recursive: true });
  const temp = join(builds, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const { build } = await import('esbuild');
  try {
    await build({
      entryPoints: entries,
      bundle: true,
      // Modules the service imports on demand (MongoDB, EventStoreDB, S3, the MCP connector)
      // stay separate chunks, loaded only when used.
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      outdir: temp,
      logLevel: 'error',
    });
    renameSync(temp, dir);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(join(dir, 'main.js'))) throw err; // otherwise another process won the rename
  }
  prune(builds, dir);
  return dir;
}

/** The publishing service's build (what `sites` runs). */
export const ensureServerBuild = () => ensureBuild(TARGETS.server);
/** The diary MCP server's build (what `bin/diary.mjs` runs). */
export const ensureDiaryBuild = () => ensureBuild(TARGETS.diary);

function prune(builds, current) {
  const now = Date.now();
  for (const name of readdirSync(builds)) {
    const path = join(builds, name);
    if (path === current || !BUILD_NAME.test(name)) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed meanwhile by another process
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = process.argv.includes('--diary') ? ensureDiaryBuild : ensureServerBuild;
  process.stdout.write(`${relative(root, await target())}\n`);
}
