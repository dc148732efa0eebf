/**
 * SIGKILL in the middle of projecting: the service starts on a log of 60,000 unprojected
 * events (10,000 sites) and is killed while it projects them (batches of several thousand
 * events, each committed with its checkpoint). After restart the read model converges,
 * and equals what `sites replay` rebuilds from scratch.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { seedSites } from '../bench/seed.ts';
import { startService, type RunningService } from '../support/service.ts';

const SITES = 10_000;
const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'sites.mjs');
let svc: RunningService | undefined;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sites-projcrash-'));
  // 10,000 sites published three times: 60,000 events.
  await seedSites(dataDir, SITES, 3);
});
afterAll(async () => {
  await svc?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('SIGKILL mid-projection', () => {
  it('converges after restart to exactly what replay gives', async () => {
    // Start the service by hand and SIGKILL it once its projector has committed some batches, not all.
    // Batches of about 1 MiB of records (some hundred sites): a start that rebuilds the read
    // model would otherwise hold all 10,000 sites in one batch, with no commit to be killed after.
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, SITES_DATA_DIR: dataDir, SITES_LISTEN_ADDR: '127.0.0.1:0', SITES_LOG_LEVEL: 'error', SITES_PROJECTION_BATCH_BYTES: '1MiB' }, stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const file = join(dataDir, 'readmodel.sqlite');
    const checkpoint = (): number => {
      try {
        const db = new Database(file, { readonly: true, fileMustExist: true });
        const cp = db.prepare('SELECT position FROM checkpoint WHERE id = 1').get() as { position: string } | undefined;
        db.close();
        return Number(cp?.position ?? 0);
      } catch {
        return 0; // not created yet, or locked for a moment
      }
    };
    for (let i = 0; i < 4000 && checkpoint() <= 15_000; i++) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    await exited;
    // Killed between two commits, past the first few thousand sites and short of the log's end.
    const at = checkpoint();
    const log = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
    const head = (log.prepare('SELECT max(position) AS p FROM events').get() as { p: number }).p;
    log.close();
    const readModel = openSqliteReadModel(join(dataDir, 'readmodel.sqlite'));
    const seen = (await readModel.listSites({ sort: 'date', includeHidden: true, limit: 1, offset: 0 })).count;
    await readModel.close();
    console.log(`killed at event ${at} of ${head}, with ${seen} of ${SITES} sites projected`);
    expect(at).toBeGreaterThan(15_000);
    expect(at).toBeLessThan(head);
    expect(seen).toBeGreaterThan(1);

    svc = await startService({ dataDir });
    const key = await svc.createKey(['--name', 'admin', '--admin']);
    const count = async () => ((await (await fetch(`${svc!.url}/api/sites?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { count: number }).count;
    for (let i = 0; i < 300 && (await count()) < SITES; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count()).toBe(SITES);
    const snapshot = async () => {
      const pages = [];
      for (const q of ['limit=500', 'limit=500&offset=9500&sort=slug', 'q=alpha&limit=100', 'tag=tag3&limit=500', 'group=team3']) {
        pages.push(await (await fetch(`${svc!.url}/api/sites?${q}`, { headers: { Authorization: `Bearer ${key}` } })).json());
      }
      return pages;
    };
    const converged = await snapshot();
    await svc.stop();
    const replay = await svc.cli(['replay']);
    expect(replay.code, replay.stderr).toBe(0);
    await svc.restart();
    expect(await snapshot()).toEqual(converged);
  });
});
