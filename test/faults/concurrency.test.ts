import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let key: string;

beforeAll(async () => {
  svc = await startService({ env: { SITES_VERSIONING_ENABLED: 'true', SITES_VERSIONING_KEEP: '50' } });
  key = await svc.createKey(['--name', 'admin', '--admin']);
});
afterAll(() => svc?.stop());

const auth = () => ({ Authorization: `Bearer ${key}` });
const filesOf = (tag: string) => ({ 'index.html': `<p>${tag}</p>`, 'a.txt': `${tag} a`, 'deep/b.css': `/* ${tag} b */`, 'deep/er/c.js': `// ${tag} c` });

describe('concurrent publishes', () => {
  it('20 publishes of different content to one site: 200 or 409, one upload live, one revision per success', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => publish(svc.url, key, { group: 'race', slug: 'one', title: 'Race' }, { files: filesOf(`upload-${i}`) })),
    );
    const statuses = results.map((r) => r.status);
    for (const s of statuses) expect([200, 409]).toContain(s);
    const ok = results.filter((r) => r.status === 200);
    console.log(`20 racing publishes: ${ok.length} × 200, ${results.length - ok.length} × 409`);
    expect(ok.length).toBeGreaterThan(0);

    // The live content is exactly one upload: every file names the same one.
    const base = svc.siteUrl('race/one');
    const index = await (await fetch(base)).text();
    const tag = /<p>(upload-\d+)<\/p>/.exec(index)![1]!;
    expect(await (await fetch(`${base}a.txt`)).text()).toBe(`${tag} a`);
    expect(await (await fetch(`${base}deep/b.css`)).text()).toBe(`/* ${tag} b */`);
    expect(await (await fetch(`${base}deep/er/c.js`)).text()).toBe(`// ${tag} c`);

    // History: one SitePublished and one revision per 200, each with the id its publish returned.
    const events = (await (await fetch(`${svc.url}/api/sites/race/one/events`, { headers: auth() })).json()) as { events: { type: string }[] };
    expect(events.events.filter((e) => e.type === 'SitePublished')).toHaveLength(ok.length);
    const revisions = (await (await fetch(`${svc.url}/api/sites/race/one/revisions`, { headers: auth() })).json()) as { revisions: { id: string; current: boolean }[] };
    expect(revisions.revisions.map((r) => r.id).sort()).toEqual(ok.map((r) => r.body.revision as string).sort());
    // The live revision is the last publish that succeeded, and it is the content served.
    const live = revisions.revisions.find((r) => r.current)!;
    const liveIndex = await (await fetch(`${svc.url}/api/sites/race/one/revisions/${live.id}/file?path=index.html`, { headers: auth() })).text();
    expect(liveIndex).toBe(index);
  });

  it('200 publishes to 200 sites while 64 connections read: no error, no stale read after a publish returned', async () => {
    const N = 200;
    const returnedAt = new Map<number, number>(); // site → time its publish returned
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const problems: string[] = [];
    let reads = 0;
    let checked = 0;
    let done = false;
    const read = (i: number): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: svc.port, path: '/', agent, headers: { Host: `s${i}.many.localhost:${svc.port}` } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const reader = async (r: number) => {
      let n = r;
      while (!done) {
        const i = (n = (n * 7 + 13) % N);
        const started = performance.now();
        const wasReturned = (returnedAt.get(i) ?? Infinity) < started;
        try {
          const res = await read(i);
          reads++;
          if (res.status === 200) {
            if (res.body !== `<p>site ${i}</p>`) problems.push(`s${i}: wrong body ${res.body.slice(0, 60)}`);
          } else if (res.status === 404) {
            if (wasReturned) problems.push(`s${i}: 404 after its publish returned (stale read)`);
          } else problems.push(`s${i}: status ${res.status}`);
          if (wasReturned) checked++;
        } catch (err) {
          problems.push(`s${i}: ${String(err)}`);
        }
      }
    };
    const readers = Array.from({ length: 64 }, (_, r) => reader(r));
    const publishes = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await publish(svc.url, key, { group: 'many', slug: `s${i}`, title: `S ${i}` }, { index: `<p>site ${i}</p>` });
        returnedAt.set(i, performance.now());
        return res.status;
      }),
    );
    // Keep reading a little after the last publish, when every read must be fresh.
    await new Promise((r) => setTimeout(r, 500));
    done = true;
    await Promise.all(readers);
    agent.destroy();
    expect(publishes.filter((s) => s !== 200)).toEqual([]);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
    expect(reads).toBeGreaterThan(checked);
    const list = (await (await fetch(`${svc.url}/api/sites?group=many&limit=500`, { headers: auth() })).json()) as { count: number };
    expect(list.count).toBe(N);
    console.log(`200 publishes under 64 readers: ${reads} reads, ${checked} after the publish returned`);
  });
});
