import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.ts';

/** Tiers that run in this process only: decider and projection specs, use cases on the embedded stores, adapter contracts. */
const IN_PROCESS = ['test/unit/**/*.test.ts', 'test/app/**/*.test.ts', 'test/contracts/**/*.test.ts'];

// The whole suite: unit, contracts, HTTP, e2e, browser and diary tests.
// Fault-injection scenarios run separately (`npm run test:faults`).
export default defineConfig({
  test: {
    exclude: ['test/faults/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend much of their time waiting on a spawned service, a CLI run or a browser,
    // not on CPU: on a 2-core machine one worker per core left a third of the CPU time unused,
    // three workers used it (suite wall time 238 s -> 205 s).
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // Test files share worker processes (each worker runs file after file, loading the shared
    // modules once) instead of starting one each: no test file changes a global, and each starts
    // and stops the services it uses. The suite's CPU time went from 356 s to 300 s.
    isolate: false,
    setupFiles: ['test/support/localhost-dns.ts'],
    reporters: ['default'],
    // Two projects only for the order: the tiers that spawn services, CLIs and browsers
    // ('integration') are queued first, each project's longest files first, and the short
    // in-process files fill the end of the run.
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: ['test/faults/**', 'node_modules/**', ...IN_PROCESS] } },
      { extends: true, test: { name: 'units', include: IN_PROCESS } },
    ],
  },
});
