import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The whole suite: unit, contracts, HTTP, e2e, browser and diary tests.
// Fault-injection scenarios run separately (`npm run test:faults`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/faults/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend their time waiting on a spawned service, a CLI run or a browser, not on
    // this process's CPU: on a 2-core machine vitest's default (one worker per core but one)
    // ran them one at a time. Two files at once halved the suite's wall time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    setupFiles: ['test/support/localhost-dns.ts'],
    reporters: ['default'],
  },
});
