/**
 * app/jobs/ in this process: the quarantine job purges what waited longer than the TTL as
 * the system identity, through the same purge use case as an admin; a site restored in
 * time is kept; collecting everything deletes only what no retained revision references.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { collectAll } from '../../app/jobs/gc.ts';
import { purgeExpired } from '../../app/jobs/purge-expired.ts';
import { publishSite } from '../../app/publish/publish-site.ts';
import { restoreSite } from '../../app/site-lifecycle/restore.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { systemIdentity } from '../../domain/auth.ts';
import { ForbiddenError } from '../../domain/errors.ts';
import { siteStream } from '../../domain/streams.ts';
import { admin, files, keyHolder, openApp, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});
const HOUR = 3_600_000;

describe('jobs', () => {
  it('purges sites in the trash past the TTL as the system, keeps the others', async () => {
    const app = openApp();
    opened.push(app);
    for (const slug of ['old', 'kept', 'young']) await publishSite(app.deps, admin, { meta: { slug, title: slug }, files: files({ 'index.html': slug }) });
    await unpublishSite(app.deps, admin, { site: 'old' });
    await unpublishSite(app.deps, admin, { site: 'kept' });
    await restoreSite(app.deps, admin, { site: 'kept' });
    app.now = new Date(app.now.getTime() + 2 * HOUR);
    await unpublishSite(app.deps, admin, { site: 'young' });
    expect(await purgeExpired(app.deps, systemIdentity('quarantine-ttl'), { ttlMs: HOUR })).toEqual(['old']);
    const events = (await app.events.readStream(siteStream({ group: '', slug: 'old' }))).events;
    expect(events.at(-1)).toMatchObject({ type: 'SitePurged', meta: { actor: { kind: 'system', name: 'quarantine-ttl' } } });
    expect((await app.readModel.listQuarantined()).map((s) => s.path)).toEqual(['young']);
  });

  it('collects every stored file nothing references, and only those; it is the operator’s or the system’s to run', async () => {
    const app = openApp();
    opened.push(app);
    await publishSite(app.deps, admin, { meta: { slug: 'a', title: 'A' }, files: files({ 'index.html': 'a', 'shared.css': 's' }) });
    const stray = await app.deps.blobs.putBytes(Buffer.from('left behind by a crash'));
    await expect(collectAll(app.deps, keyHolder([{ kind: 'group', target: '', permissions: ['purge'] }]))).rejects.toBeInstanceOf(ForbiddenError);
    expect(await collectAll(app.deps, systemIdentity('gc'))).toMatchObject({ deleted: 1 });
    expect(await app.deps.blobs.has(stray.hash)).toBe(false);
    expect((await publishSite(app.deps, admin, { meta: { slug: 'a' }, files: files({ 'index.html': 'a', 'shared.css': 's' }) })).unchanged).toBe(true);
  });
});
