/**
 * Attack (spec §15): two service instances sharing one data dir are asked, at the same moment,
 * to attach the same custom domain to two different sites. The domain's claim stream lets
 * exactly one win, whichever instance projects the read model; both instances then serve the
 * winner at that domain.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

const running: RunningService[] = [];
let dataDir: string;
afterAll(async () => {
  for (const s of running) await s.stop().catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const served = (svc: RunningService, host: string): Promise<string> =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: svc.port, path: '/', headers: { Host: host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    })
      .on('error', reject)
      .end();
  });

describe('two instances attaching one domain to two sites at once', () => {
  it('exactly one attach wins every round, and both instances serve the winner', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sites-domain-race-'));
    const a = await startService({ dataDir });
    running.push(a);
    const b = await startService({ dataDir });
    running.push(b);
    const key = await a.createKey(['--name', 'admin', '--admin']);
    for (const slug of ['left', 'right']) expect((await publish(a.url, key, { group: 'race', slug, title: slug }, { index: `<p>${slug}</p>` })).status).toBe(200);

    const wins = { left: 0, right: 0 };
    for (let round = 0; round < 8; round++) {
      const domain = `r${round}.race.test`;
      const [viaA, viaB] = await Promise.all([
        call(a.url, 'PUT', `/api/sites/race/left/domains/${domain}`, { key }),
        call(b.url, 'PUT', `/api/sites/race/right/domains/${domain}`, { key }),
      ]);
      const statuses = [viaA.status, viaB.status].sort();
      expect(statuses, domain).toEqual([200, 409]);
      const winner = viaA.status === 200 ? 'left' : 'right';
      wins[winner]++;
      for (const svc of [a, b]) {
        expect(await served(svc, domain), `${domain} on ${svc.port}`).toBe(`200 <p>${winner}</p>`);
        const sites = await Promise.all(['left', 'right'].map(async (s) => (await call(svc.url, 'GET', `/api/sites/race/${s}`, { key })).body.domains as string[]));
        expect(sites.filter((d) => d.includes(domain)), domain).toHaveLength(1);
      }
    }
    console.log(`8 rounds of racing attaches across two instances: left won ${wins.left}, right won ${wins.right}`);
  }, 90_000);
});
