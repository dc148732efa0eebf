#!/usr/bin/env node
// Compiles the service's TypeScript (host/cli/main.ts and everything it imports) into
// plain ES modules under .build/<fingerprint>/ with esbuild. `bin/sites.mjs` calls
// `ensureServerBuild()` on every start; the fingerprint covers every source file's path,
// size and mtime, so an edited file means a fresh build (about a third of a second) and
// an unchanged tree means none. Running compiled code instead of loading the sources
// through tsx saves its loader thread: about 28 MB of resident memory, and start-up time.
//
// Run directly (`node bin/build-server.mjs`) to build ahead of time, e.g. in a container image.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// client/: `sites publish` runs the publishing client (host/cli/publish.ts imports it).
const SOURCE_DIRS = ['domain', 'projections', 'app', 'api', 'host', 'mcp', 'client'];
const ENTRY = join(root, 'host', 'cli', 'main.ts');
/**
 * Builds other than the current one are removed once they are this old. A service started
 * from an older build may still load a lazy chunk from it (the MCP connector on its first
 * request), so they are kept a week, not removed at once.
 */
const STALE_BUILD_MS = 7 * 24 * 60 * 60 * 1000;

/** Hash of every source file's path, size and mtime (and of this script). */
function fingerprint() {
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
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) visit(join(root, dir));
  const self = statSync(fileURLToPath(import.meta.url));
  hash.update(`build-server\0${self.size}\0${self.mtimeMs}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The folder holding the compiled `main.js` for the current sources, building it when
 * missing. Several processes may start at once: each builds into its own temp folder
 * and renames it into place; the first rename wins and the others use its result.
 */
export async function ensureServerBuild() {
  const builds = join(root, '.build');
  const dir = join(builds, fingerprint());
  if (existsSync(join(dir, 'main.js'))) return dir;
  mkdirSync(builds, { recursive: true });
  const temp = join(builds, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const { build } = await import('esbuild');
  try {
    await build({
      entryPoints: { main: ENTRY },
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

function prune(builds, current) {
  const now = Date.now();
  for (const name of readdirSync(builds)) {
    const path = join(builds, name);
    if (path === current) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed meanwhile by another process
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${relative(root, await ensureServerBuild())}\n`);
}
