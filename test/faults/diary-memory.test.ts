/**
 * Issue 24, item 13: the diary server's memory under clients that never end their session.
 * SDK clients on the 2025 protocol connect, list the tools and go away without DELETE, 5,000
 * times, against the real process launched as `npm run diary -- --http` launches it (the
 * Node flags of the package's `diary` script, which bin/diary.mjs's shebang repeats). The
 * session cap (100) bounds what is kept; what each kept session costs, what V8 lets pile up
 * before collecting it, and what the process costs at all decide its resident memory: it
 * stays under 150 MB.
 *
 * Before: 118–126 MB at start, 261–290 MB after 1,000 such sessions. The tools' schemas were
 * built for every session's server (≈130 KB each, kept as long as the session) and converted
 * to JSON Schema on every tools/list, the sources ran through tsx's loader thread, and with
 * V8's default heap sizing the old sessions' garbage reached about four times the live heap.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../diary/helpers.ts';
import { freePort } from '../support/service.ts';

const SESSIONS = 5_000;
const AT_ONCE = 20;
const LIMIT_MB = 150;

/** `exec node FLAGS bin/diary.mjs`, the package's `diary` script: what `npm run diary` runs. */
const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.diary!.split(' ');
const flags = script.slice(2, -1);

let diary: ChildProcess;
let url: string;
let stderr = '';

beforeAll(async () => {
  const port = await freePort();
  // No upstream is needed to list tools: the diary and sign-in URLs point at a closed port.
  const closed = `http://127.0.0.1:${await freePort()}`;
  expect(script.slice(0, 2)).toEqual(['exec', 'node']);
  expect(script.at(-1)).toBe('bin/diary.mjs');
  diary = spawn(process.execPath, [...flags, 'bin/diary.mjs', '--http', `127.0.0.1:${port}`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DIARY_EMAIL: 'memory@example.org', DIARY_PASSWORD: 'x', DIARY_BASE_URL: closed, DIARY_AUTH_URL: closed },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  diary.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  url = `http://127.0.0.1:${port}/mcp`;
  for (const started = Date.now(); ; ) {
    if (diary.exitCode !== null) throw new Error(`the diary server exited: ${stderr}`);
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() - started > 60_000) throw new Error(`the diary server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  if (diary && diary.exitCode === null) {
    const exited = new Promise((r) => diary.once('exit', r));
    diary.kill('SIGTERM');
    await exited;
  }
});

/** The process's resident memory in MB, once it has been idle a moment. */
async function rssMb(): Promise<number> {
  await new Promise((r) => setTimeout(r, 1000));
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${diary.pid}/status`, 'utf8'))![1]) / 1024;
}

/** One 2025-era SDK client: initialize, list the tools, close without DELETE (as SDK v1 clients do). */
async function session(): Promise<void> {
  const client = new Client({ name: 'v1-like', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'legacy' } });
  client.onerror = () => undefined; // an evicted session's standing stream ends: expected here
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(14);
  await client.close();
}

describe('the diary server under 2025-era clients that never end their session', () => {
  it('is launched with the same Node flags by `npm run diary` and by its shebang', () => {
    expect(flags).toEqual(['--max-semi-space-size=1', '--max-old-space-size=512']);
    expect(readFileSync(join(ROOT, 'bin', 'diary.mjs'), 'utf8').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags.join(' ')}`);
  });

  it.skipIf(!existsSync('/proc/self/status'))(`stays under ${LIMIT_MB} MB resident after ${SESSIONS.toLocaleString('en')} sessions`, { timeout: 900_000 }, async () => {
    const figures = [`start ${(await rssMb()).toFixed(0)} MB`];
    const started = Date.now();
    for (let done = 0; done < SESSIONS; ) {
      await Promise.all(Array.from({ length: AT_ONCE }, session));
      done += AT_ONCE;
      if (done === 1_000) figures.push(`after 1,000: ${(await rssMb()).toFixed(0)} MB`);
    }
    const end = await rssMb();
    figures.push(`after ${SESSIONS.toLocaleString('en')}: ${end.toFixed(0)} MB (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    console.log(`diary server RSS: ${figures.join(', ')}`);
    expect(diary.exitCode).toBeNull();
    expect(end).toBeLessThan(LIMIT_MB);
  });
});
