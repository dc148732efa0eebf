import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

/**
 * Scale-out on the embedded stack: two service processes share one data dir. One holds
 * the projector lease; the other replies only once the read model reached its appends.
 * When the holder dies, the other takes over and nothing is projected twice.
 */
const running: RunningService[] = [];
let dataDir: string;
afterAll(async () => {
  for (const s of running) await s.halt().catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('two instances sharing one embedded data dir', () => {
  it('hands the projector over when the lease holder is killed', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sites-scale-'));
    const a = await startService({ dataDir });
    running.push(a);
    const b = await startService({ dataDir });
    running.push(b);
    const key = await a.createKey(['--name', 'admin', '--admin']);

    // Published through B (not the projector), visible through both at once.
    const viaB = await publish(b.url, key, { group: 'ha', slug: 'one', title: 'One' }, { index: '<p>one</p>' });
    expect(viaB.status).toBe(200);
    expect((await call(a.url, 'GET', '/api/sites/ha/one', { key })).status).toBe(200);
    expect(await (await fetch(`http://one.ha.localhost:${a.port}/`)).text()).toBe('<p>one</p>');

    await a.kill(); // SIGKILL: the lease is not released, it has to expire
    const started = Date.now();
    const viaBAgain = await publish(b.url, key, { group: 'ha', slug: 'two', title: 'Two' }, { index: '<p>two</p>' });
    expect(viaBAgain.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(20_000);
    const listing = (await call(b.url, 'GET', '/api/sites?limit=500', { key })).body;
    expect(listing.sites.map((s: any) => s.slug).sort()).toEqual(['one', 'two']);

    // The read model B built equals a replay from the log: nothing applied twice.
    await b.halt();
    expect((await b.cli(['replay'])).code).toBe(0);
    await b.restart();
    expect((await call(b.url, 'GET', '/api/sites?limit=500', { key })).body).toEqual(listing);
  }, 90_000);
});
