#!/usr/bin/env node
// Builds the portal (portal/src -> portal/dist) with esbuild. Runs on `npm install`
// and, with --if-missing, before `npm start`, so a fresh clone works with the README's commands.
// Output: portal/dist/index.html (copied from portal/public), app.js (+ .map) and app.css
// (esbuild emits the CSS imported by main.ts next to the bundle).
import { existsSync, mkdirSync, copyFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'portal', 'src', 'main.ts');
const publicDir = join(root, 'portal', 'public');
const out = join(root, 'portal', 'dist');
if (!existsSync(entry)) process.exit(0);
const complete = ['index.html', 'app.js', 'app.css'].every((f) => existsSync(join(out, f)));
if (process.argv.includes('--if-missing') && complete) process.exit(0);
const { build } = await import('esbuild');
await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: 'es2022',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
mkdirSync(out, { recursive: true });
if (existsSync(publicDir)) {
  for (const name of readdirSync(publicDir)) copyFileSync(join(publicDir, name), join(out, name));
}
