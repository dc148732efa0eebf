#!/usr/bin/env node
// The `sites` command: loads the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../host/cli/main.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
if (process.argv[2] !== 'serve') process.exit(code);
