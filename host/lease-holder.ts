import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import type { Leases } from '../domain/ports.ts';

/**
 * Lease holders that say whether they are still running.
 *
 * A lease is released on a clean stop, but a SIGKILLed (or crashed, or OOM-killed) holder
 * leaves it in the read model until it expires. A service restarted in that window could
 * not project: it served a read model without the events its predecessor appended but had
 * not projected yet (a publish committed to the log, not live), and its own writes waited,
 * for up to the lease's time. So a holder's id names its process id and the process table
 * that id belongs to (this boot's id and the pid namespace's, on Linux), and a process that
 * finds the lease held by a holder of its own process table whose process no longer exists
 * takes the lease over at once. Anything it cannot tell (another machine or container, no
 * /proc, a pid now used by another process, another instance inside this very process) is
 * treated as alive, and the lease is taken when it expires, as before.
 */

/** This process's table of process ids, or undefined where it cannot be named (no /proc). */
const PROCESS_TABLE: string | undefined = (() => {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNamespace = readlinkSync('/proc/self/ns/pid');
    if (!boot || !pidNamespace) return undefined;
    return createHash('sha256').update(`${boot}\0${pidNamespace}`).digest('hex').slice(0, 12);
  } catch {
    return undefined;
  }
})();

const HOLDER = /^(?:[a-z]+-)?(\d+)-[0-9a-f]{8}@([0-9a-f]{12})$/;

/** A new holder id for this process: `[label-]<pid>-<random>@<process table>`. */
export function leaseHolderId(label?: string): string {
  const id = `${label ? `${label}-` : ''}${process.pid}-${randomUUID().slice(0, 8)}`;
  return PROCESS_TABLE ? `${id}@${PROCESS_TABLE}` : id;
}

/** Whether `holder` is known to have stopped: a process of this process table that no longer exists. */
export function holderIsGone(holder: string): boolean {
  const m = HOLDER.exec(holder);
  if (!m || !PROCESS_TABLE || m[2] !== PROCESS_TABLE) return false;
  const pid = Number(m[1]);
  // Our own pid: another service instance in this process (the tests run several), alive.
  if (pid === process.pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false; // it exists (perhaps a later process reusing the pid: then the lease expires as before)
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Takes or renews the named lease; when another holder has it, takes it over if that
 * holder is gone (see above), telling `tookOver` whose it was. False when another keeps it.
 */
export async function takeLease(leases: Leases, name: string, holder: string, ttlMs: number, tookOver?: (from: string) => void): Promise<boolean> {
  if (await leases.tryLease(name, holder, ttlMs)) return true;
  const current = await leases.leaseHolder(name);
  if (current === undefined || current === holder || !holderIsGone(current)) return false;
  if (!(await leases.takeOverLease(name, current, holder, ttlMs))) return false;
  tookOver?.(current);
  return true;
}
