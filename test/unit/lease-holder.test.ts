/**
 * A lease left by a process that was killed (it could not release it) is recognised as
 * such, so a restarted service does not wait for it to expire; any holder it cannot prove
 * stopped is left to expire, as every holder was before.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { holderIsGone, leaseHolderId } from '../../host/lease-holder.ts';

const procfs = existsSync('/proc/sys/kernel/random/boot_id') && existsSync('/proc/self/ns/pid');
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A holder id as `pid` would make it on this machine (same process table), by swapping the pid in ours. */
const holderOf = (pid: number, label?: string) => leaseHolderId(label).replace(/(^|-)\d+-([0-9a-f]{8}@)/, `$1${pid}-$2`);

async function startChild(): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  return child;
}

describe.skipIf(!procfs)('lease holders (Linux)', () => {
  it('a holder whose process was SIGKILLed is gone; while it ran it was not', async () => {
    const child = await startChild();
    const holder = holderOf(child.pid!);
    expect(holder).toMatch(new RegExp(`^${child.pid}-[0-9a-f]{8}@[0-9a-f]{12}$`));
    expect(holderIsGone(holder)).toBe(false);
    child.kill('SIGSTOP'); // stopped is not gone
    expect(holderIsGone(holder)).toBe(false);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(holderIsGone(holder)).toBe(true);
    expect(holderIsGone(holderOf(child.pid!, 'replay'))).toBe(true);
  });

  it('never calls gone what it cannot check: this process, another process table, an old-style or foreign id', async () => {
    const child = await startChild();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const dead = holderOf(child.pid!);
    // Another service instance inside this very process has another random part, same pid.
    expect(holderIsGone(leaseHolderId())).toBe(false);
    // The same pid in another machine's or container's process table.
    expect(holderIsGone(dead.replace(/@[0-9a-f]{12}$/, '@000000000000'))).toBe(false);
    // Ids of before this change, and of other tools.
    expect(holderIsGone(`${child.pid}-1234abcd`)).toBe(false);
    expect(holderIsGone(`replay-${child.pid}`)).toBe(false);
    expect(holderIsGone('A')).toBe(false);
  });
});
