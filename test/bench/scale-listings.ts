/**
 * The listing and `/tls/ask` rows of the scale section, asked of a running service from a
 * process of its own, so that the load generator's pauses are a small heap's: in the
 * benchmark's process (a heap of about 100 MB: the modules of every section) each 3.5 MB
 * answer moved it towards a full collection of that heap, 9–26 ms each (`--trace-gc` on
 * both sides), during which the answers it was timing waited.
 * Run by scale.ts as `node --import tsx test/bench/scale-listings.ts JOB` (JSON, ListingJob);
 * prints one JSON line (ListingFigures).
 */
import { Agent } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { send, type Answer } from './http-send.ts';

export type ListingJob = {
  readonly port: number;
  readonly key: string;
  /** A key that is not an admin's: it does not see hidden sites. */
  readonly viewerKey: string;
  readonly queriesEach: number;
  /** The site patched before each listing of the after-write rows, and its title. */
  readonly patched: { readonly path: string; readonly title: string };
  /** A site hidden for the viewer's row, then patched before each of its revalidations. */
  readonly hidden: string;
  /** Host names of live sites, for `/tls/ask`. */
  readonly names: readonly string[];
};

export type ListingFigures = {
  /** Each row's times in ms, in the order of the table. */
  readonly listing: [string, number[]][];
  readonly wireGzip: number;
  readonly wirePlain: number;
  readonly tls: { asks: number[]; health: number[] };
  /** Each listing request: its row, start (ms since the epoch) and time. */
  readonly traced: [string, number, number][];
};

const LISTINGS = [
  { label: 'no filter (first 50; tree of all)', path: '/api/sites?limit=50' },
  { label: 'search q=alpha', path: '/api/sites?q=alpha&limit=50' },
  { label: 'tag=tag3', path: '/api/sites?tag=tag3&limit=50' },
  { label: 'group=team3', path: '/api/sites?group=team3&limit=50' },
  { label: 'q + tag + group', path: '/api/sites?q=bravo&tag=tag7&group=team7&limit=50' },
];
const AFTER_WRITE = 'no filter, the first after a write';
/** A full collection of this process (run with --expose-gc), between timed requests. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const REVALIDATED = 'no filter, revalidated (If-None-Match → 304)';
const UNSEEN = 'no filter, revalidated by a viewer after a write to a hidden site (304)';

async function measure(job: ListingJob): Promise<ListingFigures> {
  const { port } = job;
  const auth = { Host: `localhost:${port}`, Authorization: `Bearer ${job.key}` };
  const gz = { ...auth, 'Accept-Encoding': 'gzip' };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const listing: [string, number[]][] = [];
  const traced: [string, number, number][] = [];
  const timed = async (label: string, ask: () => Promise<Answer>): Promise<[Answer, number]> => {
    const t = performance.now();
    const r = await ask();
    const ms = performance.now() - t;
    traced.push([label, performance.timeOrigin + t, ms]);
    return [r, ms];
  };
  const get = (path: string, headers: Record<string, string>, keep = false) => send(agent, port, 'GET', path, headers, undefined, keep);

  for (const q of LISTINGS) {
    const times: number[] = [];
    for (let i = 0; i < job.queriesEach + 5; i++) {
      const [r, ms] = await timed(q.label, () => get(q.path, gz));
      if (r.status !== 200) throw new Error(`${q.path}: ${r.status}`);
      if (i >= 5) times.push(ms);
    }
    listing.push([q.label, times]);
  }
  const plain = await get(LISTINGS[0]!.path, auth);
  const packed = await get(LISTINGS[0]!.path, gz);
  const etag = String(packed.headers.etag);
  const revalidated: number[] = [];
  for (let i = 0; i < job.queriesEach; i++) {
    const [r, ms] = await timed(REVALIDATED, () => get(LISTINGS[0]!.path, { ...gz, 'If-None-Match': etag }));
    revalidated.push(ms);
    if (r.status !== 304) throw new Error(`revalidation answered ${r.status}`);
  }
  listing.push([REVALIDATED, revalidated]);

  // A title patch, then each listing once: every one is made afresh (its version moved). The
  // patched site is in the unfiltered and tag=tag3 listings and in none of the others, whose
  // answers stay as they were (what must not cost a remake of every match).
  const afterWrite = LISTINGS.map(() => [] as number[]);
  for (let i = 0; i < 25; i++) {
    const title = `${job.patched.title} ${i}`;
    const patched = await send(agent, port, 'PATCH', `/ingest/sites/${job.patched.path}`, auth, JSON.stringify({ title }));
    if (patched.status !== 200) throw new Error(`patch: ${patched.status} ${patched.body.toString('utf8')}`);
    let unfiltered: Buffer = Buffer.alloc(0);
    for (const [k, q] of LISTINGS.entries()) {
      const [r, ms] = await timed(`${q.label}, the first after a write`, () => get(q.path, gz, k === 0));
      afterWrite[k]!.push(ms);
      if (r.status !== 200) throw new Error(`${q.path} after a write: ${r.status}`);
      if (k === 0) unfiltered = r.body;
    }
    // Checked once the round's listings are timed, and its 39 MB of garbage collected then:
    // made between two of them, this process's pause was in the next one's time.
    if (!gunzipSync(unfiltered).includes(`"title":"${title}"`)) throw new Error('the listing after a write misses the write');
    collect();
  }
  listing.push([AFTER_WRITE, afterWrite[0]!]);
  for (const [k, q] of LISTINGS.entries()) if (k > 0) listing.push([`${q.label}, the first after a write`, afterWrite[k]!]);

  // A viewer revalidates the unfiltered listing after each write to a site it does not see:
  // the listing's version moved, so the viewer's answer is made again to be compared; its
  // tag is as it was (304).
  const viewer = { Host: `localhost:${port}`, Authorization: `Bearer ${job.viewerKey}`, 'Accept-Encoding': 'gzip' };
  const hide = await send(agent, port, 'PATCH', `/ingest/sites/${job.hidden}`, auth, JSON.stringify({ hidden: true }));
  if (hide.status !== 200) throw new Error(`hide: ${hide.status}`);
  const held = String((await get(LISTINGS[0]!.path, viewer)).headers.etag); // the viewer's tree rendered once
  const unseen: number[] = [];
  for (let i = 0; i < 25; i++) {
    const patched = await send(agent, port, 'PATCH', `/ingest/sites/${job.hidden}`, auth, JSON.stringify({ title: `hidden ${i}` }));
    if (patched.status !== 200) throw new Error(`patch: ${patched.status}`);
    const [r, ms] = await timed(UNSEEN, () => get(LISTINGS[0]!.path, { ...viewer, 'If-None-Match': held }));
    unseen.push(ms);
    if (r.status !== 304) throw new Error(`a viewer's revalidation after a write to a hidden site answered ${r.status}`);
  }
  listing.push([UNSEEN, unseen]);

  // GET /tls/ask for live sites' names (as Caddy asks on a first handshake), each beside a
  // GET /healthz on the same connection: the reference is the HTTP round trip itself.
  const asks: number[] = [];
  const health: number[] = [];
  for (const name of job.names) {
    let t = performance.now();
    const r = await get(`/tls/ask?domain=${encodeURIComponent(name)}`, { Host: `localhost:${port}` });
    asks.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`/tls/ask?domain=${name}: ${r.status}`);
    t = performance.now();
    await get('/healthz', { Host: `localhost:${port}` });
    health.push(performance.now() - t);
  }
  agent.destroy();
  return { listing, wireGzip: packed.bytes, wirePlain: plain.bytes, tls: { asks, health }, traced };
}

if (!process.argv[2]) throw new Error("usage: scale-listings.ts JOB");
process.stdout.write(`${JSON.stringify(await measure(JSON.parse(process.argv[2]) as ListingJob))}\n`);
