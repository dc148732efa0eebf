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
    setupFiles: ['test/support/localhost-dns.ts'],
    reporters: ['default'],
  },
});
