/**
 * A small HTTP load generator (autocannon is not installed): `connections` loops, each
 * issuing one GET at a time over a keep-alive agent with exactly that many sockets, for a
 * fixed duration after a warm-up. It runs in the caller's process, so on a small machine
 * it competes with the server for CPU: compare servers measured the same way, not
 * absolute numbers.
 */
import { Agent, request } from 'node:http';

export type LoadOptions = {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** Sent as `Host` (site hosts are virtual: the socket goes to `host`). */
  readonly hostHeader?: string;
  readonly headers?: Record<string, string>;
  readonly connections: number;
  readonly durationMs: number;
  readonly warmupMs?: number;
  /** Expected status; anything else counts as an error. */
  readonly expectStatus?: number;
  /** Expected body length; a different length counts as an error. */
  readonly expectBytes?: number;
};

export type LoadResult = {
  readonly requests: number;
  readonly errors: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly bytes: number;
  readonly firstError?: string;
};

/** Percentile of a sorted array (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

function once(agent: Agent, o: LoadOptions): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: o.host, port: o.port, path: o.path, agent, headers: { ...(o.hostHeader ? { Host: o.hostHeader } : {}), ...o.headers } },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Runs the load and returns throughput and latency over the measured window only. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections, maxFreeSockets: o.connections });
  const expectStatus = o.expectStatus ?? 200;
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let requests = 0;
  let firstError: string | undefined;
  const startedAt = performance.now();
  const measureFrom = startedAt + (o.warmupMs ?? 0);
  const stopAt = measureFrom + o.durationMs;
  const worker = async () => {
    while (performance.now() < stopAt) {
      const t0 = performance.now();
      let ok = true;
      let got = 0;
      try {
        const r = await once(agent, o);
        got = r.bytes;
        if (r.status !== expectStatus || (o.expectBytes !== undefined && r.bytes !== o.expectBytes)) {
          ok = false;
          firstError ??= `status ${r.status}, ${r.bytes} bytes`;
        }
      } catch (err) {
        ok = false;
        firstError ??= String(err);
      }
      const t1 = performance.now();
      if (t0 >= measureFrom && t1 <= stopAt) {
        requests++;
        bytes += got;
        if (ok) latencies.push(t1 - t0);
        else errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: o.connections }, worker));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests,
    errors,
    rps: requests / (o.durationMs / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    bytes,
    ...(firstError ? { firstError } : {}),
  };
}
