/**
 * One replay measurement in a process of its own, so that its peak RSS is the replay's and
 * not the benchmark's: reads the whole log (the reference), then rebuilds the read model
 * from it (reset + projector catch-up), `runs` times each, alternating; prints one JSON line
 * (with each run's CPU time beside its wall time).
 * Run by scale.ts as `node --import tsx test/bench/replay-child.ts DATA_DIR RUNS`.
 */
import { join } from 'node:path';
import { Projector } from '../../host/projector.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';

const [dataDir, runsArg] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: replay-child.ts DATA_DIR RUNS');
const runs = Number(runsArg ?? 3);
const events = openSqliteEventStore(join(dataDir, 'events.sqlite'));
const readModel = openSqliteReadModel(join(dataDir, 'readmodel.sqlite'));
const reads: number[] = [];
const replays: number[] = [];
/** Per run: CPU ms of the read and of the replay (the machine may be shared: wall times then include waits for a core). */
const cpu: [number, number][] = [];
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let count = 0;
try {
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    const c0 = cpuMs();
    let n = 0;
    for (let after: string | undefined; ; ) {
      const page = await events.readAll(after, 500);
      if (page.length === 0) break;
      n += page.length;
      after = page[page.length - 1]!.position;
    }
    reads.push(performance.now() - t0);
    const c1 = cpuMs();
    count = n;
    t0 = performance.now();
    await readModel.reset();
    const applied = await new Projector(events, readModel, { holder: 'bench' }).catchUp();
    replays.push(performance.now() - t0);
    cpu.push([Math.round(c1 - c0), Math.round(cpuMs() - c1)]);
    if (applied !== n) throw new Error(`replay applied ${applied} events, the log holds ${n}`);
  }
} finally {
  await events.close();
  await readModel.close();
}
// maxRSS is in kilobytes.
process.stdout.write(`${JSON.stringify({ events: count, reads, replays, peakMb: process.resourceUsage().maxRSS / 1024, cpu })}\n`);
