/**
 * Webhook deliveries (spec §16, issue 28): 1,000 publishes delivered to a local receiver,
 * against the rate the same receiver accepts from a plain loop of POSTs (one at a time on one
 * kept-alive connection, as the outbound client sends them), and the projector's lag (how
 * long a command waits for the read model: a PATCH's latency) while they are delivered,
 * against the same with nothing to deliver. The service is the real process; the receiver
 * is a process of its own and times both runs itself. The rate is measured in rounds, each
 * drain between two plain loops run just before and just after it (the machine's speed
 * moves within a run): the row is the median of the rounds' ratios, with their spread.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { percentile } from '../support/load.ts';
import { publish } from '../support/publish.ts';
import { startService } from '../support/service.ts';
import { fmt } from './support.ts';
import type { Row } from './table.ts';

export type WebhookBenchParams = { readonly deliveries: number; readonly rounds: number };

/** What the receiver saw since its last reset (webhook-receiver.mjs): the sender's and its own turn of each round trip, medians in µs, and the sender's stalls (its turns past twice the median) per request. */
type Stats = { count: number; firstMs: number; lastMs: number; senderUs: number; receiverUs: number; senderSlowUs: number };

function http(port: number, method: string, path: string, opts: { body?: string; headers?: Record<string, string>; agent?: Agent | false } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: opts.agent ?? false, headers: { ...(opts.body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(opts.body)) } : {}), ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function startReceiver(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'webhook-receiver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (c: Buffer) => resolve(Number(c.toString().trim())));
    child.once('exit', () => reject(new Error('the receiver exited')));
  });
  return { port, child };
}

/**
 * CPU time a process has used so far, all its threads, in µs (Linux' per-thread schedstat:
 * nanoseconds, not the 10 ms ticks of /proc/PID/stat); undefined elsewhere.
 */
function cpuMicros(pid: number, mainThreadOnly = false): number | undefined {
  try {
    let ns = 0;
    for (const task of mainThreadOnly ? [String(pid)] : readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1000;
  } catch {
    return undefined;
  }
}

/**
 * CPU per request (µs) of the processes named, over what `run` does (`count` requests); a
 * name ending in `Main` counts only that process's main thread (the pid's own task).
 */
async function cpuPer<T, K extends string>(pids: Record<K, number>, count: number, run: () => Promise<T>): Promise<{ result: T; cpu: Record<K, number | undefined> }> {
  const names = Object.keys(pids) as K[];
  const sample = (k: K) => cpuMicros(pids[k], k.endsWith('Main'));
  const before = names.map(sample);
  const result = await run();
  const cpu = Object.fromEntries(
    names.map((k, i) => {
      const [a, b] = [before[i], sample(k)];
      return [k, a === undefined || b === undefined ? undefined : (b - a) / count];
    }),
  ) as Record<K, number | undefined>;
  return { result, cpu };
}

/**
 * Waits until a process has been quiet (under 5% of a core for 100 ms; 3 s at most): what a
 * burst of work leaves behind (a WAL checkpoint, a collection, a retry) then runs before a
 * timed run, not during it.
 */
async function quiet(pid: number): Promise<void> {
  const until = performance.now() + 3000;
  let last = cpuMicros(pid);
  while (last !== undefined && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    const now = cpuMicros(pid);
    if (now === undefined || now - last < 5000) return;
    last = now;
  }
}

const us = (x: number | undefined) => (x === undefined ? '?' : `${fmt(x, 0)} µs`);
const rate = (s: Stats) => (s.count - 1) / ((s.lastMs - s.firstMs) / 1000);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchWebhooks(p: WebhookBenchParams, log: (s: string) => void): Promise<Row[]> {
  const receiver = await startReceiver();
  const stats = async () => JSON.parse((await http(receiver.port, 'GET', '/stats')).body) as Stats;
  const svc = await startService({ env: { SITES_WEBHOOK_ALLOW_PRIVATE: 'true', SITES_VERSIONING_ENABLED: 'false', SITES_LOG_LEVEL: 'error' } });
  try {
    // The reference: the receiver alone, from a plain loop, with a body and headers like a delivery's.
    const sample = JSON.stringify({ type: 'site.published', timestamp: new Date().toISOString(), data: { site: 'bench/s1', url: 'http://s1.bench.localhost/', actor: { kind: 'key', id: 1, name: 'bench' }, revision: '20260101T000000.000000000Z', created: false, title: 'Site', files: 1, size: 30 } });
    const headers = { 'webhook-id': 'msg_0000000000000000000000000', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': `v1,${'A'.repeat(43)}=` };
    // On a path of its own, which the receiver answers while the service's is down: the loop can run right before a drain.
    const plainLoop = async () => {
      await http(receiver.port, 'POST', '/reset');
      const kept = new Agent({ keepAlive: true, maxSockets: 1 });
      const { cpu } = await cpuPer({ loop: process.pid, receiver: receiver.child.pid! }, p.deliveries, async () => {
        for (let i = 0; i < p.deliveries; i++) await http(receiver.port, 'POST', '/loop', { body: sample, headers, agent: kept });
      });
      kept.destroy();
      return { stats: await stats(), cpu };
    };
    await plainLoop(); // warm-up

    const key = await svc.createKey(['--name', 'bench', '--admin']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const api = (method: string, path: string, body?: unknown) =>
      http(svc.port, method, path, { agent, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), headers: { host: `localhost:${svc.port}`, authorization: `Bearer ${key}` } });
    expect201(await api('POST', '/api/webhooks', { url: `http://127.0.0.1:${receiver.port}/in`, events: ['site.published'] }));
    const hookId = (JSON.parse((await api('GET', '/api/webhooks')).body) as { webhooks: { id: string }[] }).webhooks[0]!.id;
    expect201({ status: (await publish(svc.url, key, { group: 'bench', slug: 'lag', title: 'Lag' }, { index: '<p>lag</p>' })).status === 200 ? 201 : 0, body: '' });

    // The projector's lag with nothing to deliver: a command's wait for the read model, at the
    // pace of the run with deliveries (one every 10 ms), so both sides measure the same thing.
    const patchLatency = async (untilMs: number, atMost: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; times.length < atMost && (i < 20 || performance.now() < untilMs); i++) {
        await new Promise((r) => setTimeout(r, 10));
        const t = performance.now();
        const r = await api('PATCH', '/ingest/sites/bench/lag', { title: `Lag ${i} ${Math.random()}` });
        if (r.status !== 200) throw new Error(`patch: ${r.status} ${r.body}`);
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b);
    };
    // Measured before and after the deliveries, like the plain loop: the machine's speed moves during the run.
    const idleBefore = await patchLatency(0, 100);

    /**
     * `count` publishes while the receiver answers 503 (the first delivery retries, the rest
     * wait behind it), then the receiver comes back and the first is sent again at once: the
     * lane drains in log order. `during` runs while it drains; `beside` (the plain loops) runs
     * right before the receiver comes back and right after the lane drained.
     */
    const drainRun = async <B>(round: number, during: (drained: () => Promise<boolean>) => Promise<number[]>, beside: () => Promise<B>) => {
      await http(receiver.port, 'POST', '/down');
      const t0 = performance.now();
      let oldest: string | undefined;
      for (let i = 0; i < p.deliveries; i++) {
        const r = await publish(svc.url, key, { group: 'bench', slug: `s${i % 20}`, title: `S${round} ${i}` }, { index: `<p>${round} ${i}</p>` });
        if (r.status !== 200) throw new Error(`publish: ${r.status} ${JSON.stringify(r.body)}`);
        if (i === 0) oldest = await firstDelivery(api, hookId);
      }
      log(`webhooks: round ${round}: ${p.deliveries} publishes in ${fmt((performance.now() - t0) / 1000, 1)} s`);
      // The plain loops and the drain each start with the service quiet: 1,000 publishes leave work behind.
      await quiet(svc.pid);
      const before = await beside();
      await http(receiver.port, 'POST', '/up');
      await http(receiver.port, 'POST', '/reset');
      const started = performance.now();
      const drained = async () => (await stats()).count >= p.deliveries || performance.now() - started > 120_000;
      const { result: lag, cpu } = await cpuPer({ service: svc.pid, serviceMain: svc.pid, receiver: receiver.child.pid! }, p.deliveries, async () => {
        expect202(await api('POST', `/api/webhooks/${hookId}/deliveries/${oldest}/redeliver`));
        const lag = await during(drained);
        for (let i = 0; !(await drained()); i++) await new Promise((r) => setTimeout(r, 50));
        return lag;
      });
      const s = await stats();
      if (s.count < p.deliveries) throw new Error(`only ${s.count} of ${p.deliveries} deliveries arrived`);
      await quiet(svc.pid);
      const after = await beside();
      return { stats: s, lag, cpu, before, after };
    };
    // The lag: commands at an ordinary pace (one every 10 ms, not back to back) while 1,000 deliveries drain.
    // Kept-alive deliveries drain 1,000 in about a second: at 25 ms a run had 25 to 50 patches, too few for a stable p50.
    // This round also warms the sender up, as the plain loop's first run warmed the client.
    const busy = await drainRun(
      0,
      async (drained) => {
        const times: number[] = [];
        for (;;) {
          await new Promise((r) => setTimeout(r, 10));
          const t = performance.now();
          const r = await api('PATCH', '/ingest/sites/bench/lag', { title: `During ${times.length} ${Math.random()}` });
          if (r.status !== 200) throw new Error(`patch: ${r.status} ${r.body}`);
          times.push(performance.now() - t);
          if (await drained()) return times.sort((a, b) => a - b);
        }
      },
      async () => undefined,
    );
    log(`webhooks: round 0 (the lag, and the sender's warm-up): ${fmt(rate(busy.stats), 0)} deliveries/s`);
    // The rate: more rounds of 1,000, with nothing else going on while the lane drains (the receiver's own clock times it).
    const rounds: { drain: number; plain: number; ratio: number; serviceCpu?: number; loopCpu?: number }[] = [];
    for (let round = 1; round <= p.rounds; round++) {
      const r = await drainRun(round, async () => [], plainLoop);
      const plain = (rate(r.before.stats) + rate(r.after.stats)) / 2;
      const mean = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : (a + b) / 2);
      const loopCpu = mean(r.before.cpu.loop, r.after.cpu.loop);
      rounds.push({ drain: rate(r.stats), plain, ratio: rate(r.stats) / plain, ...(r.cpu.service !== undefined ? { serviceCpu: r.cpu.service } : {}), ...(loopCpu !== undefined ? { loopCpu } : {}) });
      log(
        `webhooks: round ${round}: ${fmt(rate(r.stats), 0)} deliveries/s against ${fmt(plain, 0)} POSTs/s (${fmt(rate(r.before.stats), 0)} before, ${fmt(rate(r.after.stats), 0)} after): ${fmt(rate(r.stats) / plain, 2)}×; ` +
          `CPU per request: service ${us(r.cpu.service)} (its main thread ${us(r.cpu.serviceMain)}) against the loop's ${us(loopCpu)}, the receiver ${us(r.cpu.receiver)} against ${us(mean(r.before.cpu.receiver, r.after.cpu.receiver))}; ` +
          `sender's / receiver's turn (median): drain ${r.stats.senderUs} / ${r.stats.receiverUs} µs, loops ${r.before.stats.senderUs} / ${r.before.stats.receiverUs} and ${r.after.stats.senderUs} / ${r.after.stats.receiverUs} µs; ` +
          `the sender's stalls (past twice its median) per request: drain ${r.stats.senderSlowUs} µs, loops ${r.before.stats.senderSlowUs} and ${r.after.stats.senderSlowUs} µs`,
      );
    }
    const during = busy.lag;
    const idleAfter = await patchLatency(0, 100);
    const idle = [...idleBefore, ...idleAfter].sort((a, b) => a - b);
    agent.destroy();
    const ratios = rounds.map((r) => r.ratio);
    const ratio = median(ratios);
    const cpuNote = rounds.every((r) => r.serviceCpu !== undefined && r.loopCpu !== undefined)
      ? `; CPU per request (median): service ${us(median(rounds.map((r) => r.serviceCpu!)))}, the loop ${us(median(rounds.map((r) => r.loopCpu!)))}`
      : '';
    log(`webhooks: ratios ${ratios.map((x) => fmt(x, 2)).join(', ')}${cpuNote}`);
    const lagRatio = percentile(during, 50) / percentile(idle, 50);
    return [
      {
        section: 'Webhooks',
        what: `${p.deliveries} publishes delivered to a local receiver (one webhook, in log order; median of ${p.rounds} rounds, ratios ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
        value: `${fmt(median(rounds.map((r) => r.drain)), 0)} deliveries/s`,
        reference: `the receiver from a plain loop (one kept-alive connection, as deliveries), just before and after each round: ${fmt(median(rounds.map((r) => r.plain)), 0)} POSTs/s`,
        ratio,
        target: '≥ 0.8×',
        ok: ratio >= 0.8,
      },
      {
        section: 'Webhooks',
        what: `projector lag (a PATCH's wait for the read model) while those deliveries go out`,
        value: `p50 ${fmt(percentile(during, 50), 1)} ms, p99 ${fmt(percentile(during, 99), 1)} ms (${during.length} patches)`,
        reference: `nothing to deliver, before and after: p50 ${fmt(percentile(idle, 50), 1)} ms (${fmt(percentile(idleBefore, 50), 1)}, ${fmt(percentile(idleAfter, 50), 1)}), p99 ${fmt(percentile(idle, 99), 1)} ms`,
        ratio: lagRatio,
        target: 'unchanged (p50 ≤ 1.25×)',
        ok: lagRatio <= 1.25,
      },
    ];
  } finally {
    await svc.stop();
    receiver.child.kill('SIGTERM');
  }
}

/** The webhook's one delivery once its first attempt failed (the head of its lane, which the others wait behind). */
async function firstDelivery(api: (m: string, p: string) => Promise<{ body: string }>, hookId: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const [d] = (JSON.parse((await api('GET', `/api/webhooks/${hookId}/deliveries`)).body) as { deliveries: { id: string; attempts: number }[] }).deliveries;
    if (d && d.attempts > 0) return d.id;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the first delivery was never attempted');
}

function expect201(r: { status: number; body: string }): void {
  if (r.status !== 201) throw new Error(`expected 201, got ${r.status} ${r.body}`);
}
function expect202(r: { status: number; body: string }): void {
  if (r.status !== 202) throw new Error(`expected 202, got ${r.status} ${r.body}`);
}
