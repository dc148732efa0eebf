#!/usr/bin/env node
// `npm run docs`: rewrites the generated parts of the docs from the code (the configuration
// reference from host/config-settings.ts, the CLI reference from `sites … --help`).
// `npm run docs -- --check` changes nothing and exits 1 when a page is out of date, as
// test/unit/docs-generated.test.ts does.
import { register } from 'tsx/esm/api';

register();
const { generatedPages, writeGenerated } = await import('../host/docs/generated.ts');

try {
  if (process.argv.includes('--check')) {
    const stale = (await generatedPages()).filter((p) => p.committed !== p.expected).map((p) => p.file);
    for (const file of stale) process.stderr.write(`docs: ${file} is out of date: run npm run docs\n`);
    process.exitCode = stale.length ? 1 : 0;
  } else {
    const changed = await writeGenerated();
    process.stdout.write(changed.length ? `docs: rewrote ${changed.join(', ')}\n` : 'docs: up to date\n');
  }
} catch (err) {
  process.stderr.write(`docs: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
