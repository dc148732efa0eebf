/**
 * How hosts launch the diary server: stdout must carry JSON-RPC and nothing else, from the
 * first byte. `node bin/diary.mjs` and `npm run -s diary` do; `npm run diary` does not (npm
 * prints its banner there first) and says so on stderr.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';
import { ROOT } from './helpers.ts';

let sim: DiarySim;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim?.close());

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'launch-test', version: '1' } } });

/** Starts a launch command, sends initialize, and returns stdout up to the first answer line, and stderr. */
function firstLine(command: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...sim.env(), npm_config_loglevel: '', npm_lifecycle_event: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no answer; stdout: ${stdout} stderr: ${stderr}`));
    }, 20_000);
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      if (stdout.includes('"id":1')) {
        clearTimeout(timer);
        child.kill();
        resolve({ stdout, stderr });
      }
    });
    child.stdin.write(`${INITIALIZE}\n`);
  });
}

describe('launching the diary server', () => {
  it('node bin/diary.mjs: the first byte on stdout is JSON-RPC', async () => {
    const { stdout } = await firstLine(process.execPath, ['bin/diary.mjs']);
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: expect.anything() } });
  });

  it('npm run diary without -s: npm writes its banner first, and the server says so on stderr', async () => {
    const { stdout, stderr } = await firstLine('npm', ['run', 'diary']);
    expect(stdout.trimStart().startsWith('>')).toBe(true);
    expect(stderr).toMatch(/node bin\/diary\.mjs/);
  });
});
