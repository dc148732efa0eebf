import { setFlagsFromString } from 'node:v8';

/**
 * Holds V8's old generation closer to what it keeps alive while `fn` runs.
 *
 * After each full collection V8 lets the old generation grow to about four times what the
 * collection kept before it collects again. A catch-up's batch keeps a record of every
 * stream it touched (about 115 MB for the benchmark's 100,000 sites), and each event folded
 * in leaves the record it replaced there as garbage: a replay of 100,000 sites peaked at
 * 523 MB resident. With a growing factor of 1.5 it peaked at 358 MB, for about the same
 * time (the old generation is marked concurrently, beside the main thread; the main
 * thread's pauses for it added up to 62 ms). `--heap-growing-percent` is read at each full
 * collection, so setting it while the process runs takes effect at the next one; 0 is V8's
 * own default (a factor V8 picks itself), restored once no holder is left.
 */
let holders = 0;

export async function withHeldHeapGrowth<T>(fn: () => Promise<T>): Promise<T> {
  if (holders++ === 0) setFlagsFromString('--heap-growing-percent=50');
  try {
    return await fn();
  } finally {
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  }
}
