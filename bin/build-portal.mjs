#!/usr/bin/env node
// Builds the portal (portal/src -> portal/dist) with esbuild. Runs on `npm install`
// and, with --if-missing, before `npm start`, so a fresh clone works with the README's commands.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'portal', 'src', 'main.ts');
const out = join(root, 'portal', 'dist');
if (!existsSync(entry)) process.exit(0);
if (process.argv.includes('--if-missing') && existsSync(join(out, 'app.js'))) process.exit(0);
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
