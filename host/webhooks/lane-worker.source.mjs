// Runs lane-worker.ts from the TypeScript sources (tests, SITES_FROM_SOURCE=1) through tsx;
// the compiled build runs its own webhook-lanes.js instead (bin/build-server.mjs).
import { workerData } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register();
await import(workerData.entry);
