/** How long a delivery is retried, from its first attempt (or from a redelivery). */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Waits after the n-th failed attempt: quick at first (a receiver restarting), then growing
 * to four hours; over 24 hours that is about 14 attempts. Each wait is jittered by ±20%, so
 * deliveries that failed together (a receiver that was down) do not all come back at once.
 */
const DELAYS_MS = [2_000, 10_000, 60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 60 * 60_000, 2 * 60 * 60_000, 4 * 60 * 60_000];

export function retryDelay(failedAttempts: number, random: () => number): number {
  const base = DELAYS_MS[Math.min(Math.max(failedAttempts, 1), DELAYS_MS.length) - 1]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}
