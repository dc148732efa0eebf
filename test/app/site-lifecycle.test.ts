/**
 * app/site-lifecycle/ in this process: each command needs its capability on the path,
 * checked before the site is looked up, and acts on the state the lifecycle allows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { publishSite } from '../../app/publish/publish-site.ts';
import { patchSite } from '../../app/site-lifecycle/patch.ts';
import { purgeSite } from '../../app/site-lifecycle/purge.ts';
import { restoreSite } from '../../app/site-lifecycle/restore.ts';
import { rollbackSite } from '../../app/site-lifecycle/rollback.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { systemIdentity, type Identity } from '../../domain/auth.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../domain/errors.ts';
import type { Capability } from '../../domain/grants.ts';
import { siteStream } from '../../domain/streams.ts';
import { countBlobs } from '../support/blobs.ts';
import { admin, files, keyHolder, openApp, viewer, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});
const open = (versioning = { enabled: true, keep: 5 }) => {
  const app = openApp({ versioning });
  opened.push(app);
  return app;
};
const on = (...permissions: Capability[]) => keyHolder([{ kind: 'site', target: 'team/app', permissions }]);
const publishV = (app: AppHarness, n: number, extra: Record<string, string> = {}) =>
  publishSite(app.deps, admin, { meta: { group: 'team', slug: 'app', title: 'App' }, files: files({ 'index.html': `<p>${n}</p>`, ...extra }) });

describe('site lifecycle use cases', () => {
  it('each needs its own capability, refused alike whether or not the site exists (spec §2)', async () => {
    const app = open();
    await publishV(app, 1);
    const cases: [string, (who: Identity, site: string) => Promise<unknown>, Capability][] = [
      ['unpublish', (who, site) => unpublishSite(app.deps, who, { site }), 'unpublish'],
      ['restore', (who, site) => restoreSite(app.deps, who, { site }), 'publish'],
      ['purge', (who, site) => purgeSite(app.deps, who, { site }), 'purge'],
      ['patch', (who, site) => patchSite(app.deps, who, { site, patch: { title: 'x' } }), 'patch'],
      ['rollback', (who, site) => rollbackSite(app.deps, who, { site }), 'rollback'],
    ];
    const others = (['publish', 'unpublish', 'rollback', 'patch', 'purge'] as Capability[]);
    for (const [name, run, needed] of cases) {
      const without = keyHolder([{ kind: 'group', target: '', permissions: others.filter((c) => c !== needed) }]);
      for (const site of ['team/app', 'team/missing']) {
        await expect(run(without, site), `${name} ${site}`).rejects.toThrow(new ForbiddenError(`this credential lacks the "${needed}" capability on ${site}`));
      }
      await expect(run(viewer, 'Not A Path'), name).rejects.toThrow(new ForbiddenError('this needs an admin'));
    }
    expect(await app.events.streamRevision(siteStream({ group: 'team', slug: 'app' }))).toBe(0);
  });

  it('unpublish, restore and purge follow the lifecycle; purge deletes what nothing else holds', async () => {
    const app = open();
    await publishV(app, 1, { 'only.txt': 'only here' });
    await expect(restoreSite(app.deps, on('publish'), { site: 'team/app' })).rejects.toThrow(new NotFoundError('site team/app is live, not in the trash'));
    await expect(purgeSite(app.deps, on('purge'), { site: 'team/app' })).rejects.toBeInstanceOf(NotFoundError);
    await unpublishSite(app.deps, on('unpublish'), { site: 'team/app' });
    expect((await app.readModel.getSite('team/app'))?.status).toBe('quarantined');
    const restored = await restoreSite(app.deps, on('publish'), { site: 'team/app' });
    expect(restored.title).toBe('App');
    expect(restored).not.toHaveProperty('deleted_at');
    await unpublishSite(app.deps, on('unpublish'), { site: 'team/app' });
    // The quarantine job purges as the system: an identity like any other, through the same use case.
    await purgeSite(app.deps, systemIdentity('quarantine-ttl'), { site: 'team/app' });
    expect(await app.readModel.getSite('team/app')).toBeUndefined();
    expect(await countBlobs(app.dir)).toBe(0);
    const purged = (await app.events.readStream(siteStream({ group: 'team', slug: 'app' }))).events.at(-1)!;
    expect(purged).toMatchObject({ type: 'SitePurged', meta: { actor: { kind: 'system', name: 'quarantine-ttl' } } });
  });

  it('patch edits the metadata of a live site; null clears an optional field', async () => {
    const app = open();
    await publishSite(app.deps, admin, { meta: { group: 'team', slug: 'app', title: 'App', description: 'old' }, files: files({ 'index.html': 'x' }) });
    const patched = await patchSite(app.deps, on('patch'), { site: 'team/app', patch: { title: 'New', description: null, tags: ['a'] } });
    expect(patched).toMatchObject({ title: 'New', description: '', tags: ['a'] });
  });

  it('rollback swaps with an archived revision, counts the change, and answers the revision now live', async () => {
    const app = open();
    const v1 = await publishV(app, 1, { 'v1.txt': 'one' });
    await publishV(app, 2);
    const { site, revision } = await rollbackSite(app.deps, on('rollback'), { site: 'team/app' });
    expect(revision).toBe(v1.revision);
    expect(site.size).toBe('<p>1</p>'.length + 3);
    const rolled = (await app.events.readStream(siteStream({ group: 'team', slug: 'app' }))).events.at(-1)!;
    expect(rolled).toMatchObject({ type: 'SiteRolledBack', data: { revisionId: v1.revision, filesAdded: 1, filesChanged: 1, filesRemoved: 0 } });
    // `current` does nothing; an unknown revision is not found.
    expect((await rollbackSite(app.deps, on('rollback'), { site: 'team/app', revision: 'current' })).revision).toBe(v1.revision);
    await expect(rollbackSite(app.deps, on('rollback'), { site: 'team/app', revision: '20000101T000000.000000000Z' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rollback with versioning off is a conflict', async () => {
    const app = open({ enabled: false, keep: 5 });
    await publishV(app, 1);
    await publishV(app, 2);
    await expect(rollbackSite(app.deps, on('rollback'), { site: 'team/app' })).rejects.toBeInstanceOf(ConflictError);
  });
});
