import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';
import { DIARY_ARGS, ROOT, stdioClient, type TestClient } from './helpers.ts';
import { toolSuite } from './tools.suite.ts';

const TIMEOUT = 300;
let sim: DiarySim;
let client: TestClient;
beforeAll(async () => {
  sim = await startSimulator();
  // A modern (2026-07-28) client over stdio: the spawned `npm run diary` entry point.
  client = await stdioClient(sim, 'modern', 'accept', { DIARY_HTTP_TIMEOUT_MS: String(TIMEOUT) });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

describe('stdio, modern client', () => {
  it('negotiated the modern revision', () => {
    expect(client.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });
  toolSuite({ sim: () => sim, client: () => client, timeoutMs: TIMEOUT });
});

describe('start-up', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, DIARY_ARGS, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('missing credentials stop start-up with one line naming them', () => {
    const r = run({});
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('DIARY_EMAIL');
    expect(lines[0]).toContain('DIARY_PASSWORD');
    const one = run({ DIARY_EMAIL: 'a@b' });
    expect(one.status).not.toBe(0);
    expect(one.stderr).toContain('DIARY_PASSWORD');
    expect(one.stderr).not.toContain('DIARY_EMAIL');
  });
});
