/**
 * app/publish/ in this process: publishSite as the edges call it (an identity, the parsed
 * meta, the files as they arrive), on the embedded adapters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { publishSite } from '../../app/publish/publish-site.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { ConflictError, ForbiddenError, ValidationError } from '../../domain/errors.ts';
import { siteStream } from '../../domain/streams.ts';
import { countBlobs } from '../support/blobs.ts';
import { admin, files, keyHolder, openApp, viewer, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});
const open = () => {
  const app = openApp();
  opened.push(app);
  return app;
};
const docsKey = keyHolder([{ kind: 'group', target: 'docs', permissions: ['publish'] }]);
const page = (t: string) => `<!doctype html><title>${t}</title>`;

describe('publishSite', () => {
  it('publishes and answers the PublishResult: the site as the publisher may see it, its URL, the new revision', async () => {
    const app = open();
    const result = await publishSite(app.deps, docsKey, { meta: { group: 'docs', slug: 'app', title: 'App' }, files: files({ 'index.html': page('a'), 'a.css': 'a{}' }) });
    expect(result).toMatchObject({ url: 'http://app.docs.localhost/', group: 'docs', slug: 'app', unchanged: false, site: { title: 'App', size: page('a').length + 3 } });
    expect(result.revision).toMatch(/^\d{8}T\d{6}\.\d{9}Z$/);
    // `updated_by` is for admins only (the key is not one).
    expect(result.site.updated_by).toBeUndefined();
    const again = await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'app' }, files: files({ 'index.html': page('b') }) });
    expect(again.site.updated_by).toEqual({ kind: 'user', name: 'admin' });
  });

  it('checks `publish` on the target before it reads a byte of the files or looks anything up', async () => {
    const app = open();
    let read = false;
    async function* watched() {
      read = true;
      yield* files({ 'index.html': page('x') });
    }
    for (const slug of ['app', 'never-made']) {
      await expect(publishSite(app.deps, docsKey, { meta: { group: 'other', slug, title: 'x' }, files: watched() })).rejects.toThrow(
        new ForbiddenError(`this credential lacks the "publish" capability on other/${slug}`),
      );
    }
    // A viewer is refused before its meta is even checked.
    await expect(publishSite(app.deps, viewer, { meta: { group: 'BAD', slug: '--', title: 'x' }, files: watched() })).rejects.toThrow(new ForbiddenError('this needs an admin'));
    // Bad labels are the caller's mistake (400), checked before the capability.
    await expect(publishSite(app.deps, docsKey, { meta: { group: 'docs', slug: 'Bad_Slug', title: 'x' }, files: watched() })).rejects.toBeInstanceOf(ValidationError);
    expect(read).toBe(false);
    expect(await countBlobs(app.dir)).toBe(0);
  });

  it('refuses a path in the trash with 409, storing nothing and recording nothing (spec §4)', async () => {
    const app = open();
    await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'legal', title: 'Legal' }, files: files({ 'index.html': page('legal') }) });
    await unpublishSite(app.deps, admin, { site: 'docs/legal' });
    const blobs = await countBlobs(app.dir);
    const history = await app.events.streamRevision(siteStream({ group: 'docs', slug: 'legal' }));
    await expect(publishSite(app.deps, docsKey, { meta: { group: 'docs', slug: 'legal' }, files: files({ 'index.html': page('new'), 'n.css': 'n{}' }) })).rejects.toThrow(
      new ConflictError('docs/legal is in the trash: restore it or purge it first'),
    );
    expect(await countBlobs(app.dir)).toBe(blobs);
    expect(await app.events.streamRevision(siteStream({ group: 'docs', slug: 'legal' }))).toBe(history);
  });

  it('the live files again record nothing and answer unchanged; new meta with them is only a patch', async () => {
    const app = open();
    const site = { 'index.html': page('same'), 'a.css': 'a{}' };
    const first = await publishSite(app.deps, docsKey, { meta: { group: 'docs', slug: 'ci', title: 'CI' }, files: files(site) });
    const stream = siteStream({ group: 'docs', slug: 'ci' });
    const rerun = await publishSite(app.deps, docsKey, { meta: { group: 'docs', slug: 'ci', title: 'CI' }, files: files(site) });
    expect(rerun).toEqual({ ...first, unchanged: true });
    expect(await app.events.streamRevision(stream)).toBe(0);
    const renamed = await publishSite(app.deps, docsKey, { meta: { group: 'docs', slug: 'ci', title: 'Renamed' }, files: files(site) });
    expect(renamed).toMatchObject({ unchanged: false, revision: first.revision, site: { title: 'Renamed' } });
    expect((await app.events.readStream(stream)).events.map((e) => e.type)).toEqual(['SitePublished', 'SitePatched']);
  });

  it('takes empty files, an empty index.html included', async () => {
    const app = open();
    const result = await publishSite(app.deps, admin, { meta: { slug: 'blank', title: 'Blank' }, files: files({ 'index.html': '', '.nojekyll': '' }) });
    expect(result.site.size).toBe(0);
    const manifest = await app.deps.manifests.get((await app.readModel.getSite('blank'))!.live.manifest);
    expect([...manifest!.files].map(([path, e]) => [path, e.size])).toEqual([
      ['.nojekyll', 0],
      ['index.html', 0],
    ]);
  });

  it('counts the changes against the revision it replaces, for the history', async () => {
    const app = open();
    await publishSite(app.deps, admin, { meta: { slug: 'log', title: 'Log' }, files: files({ 'index.html': page('1'), 'old.css': 'o{}' }) });
    await publishSite(app.deps, admin, { meta: { slug: 'log' }, files: files({ 'index.html': page('2'), 'new.css': 'n{}' }) });
    const published = (await app.events.readStream(siteStream({ group: '', slug: 'log' }))).events.filter((e) => e.type === 'SitePublished');
    expect(published.map((e) => e.data)).toMatchObject([
      { filesAdded: 2, filesChanged: 0, filesRemoved: 0 },
      { filesAdded: 1, filesChanged: 1, filesRemoved: 1 },
    ]);
  });
});
