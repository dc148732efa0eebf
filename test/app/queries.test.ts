/**
 * app/queries/ in this process: who may read what (spec §5: anyone signed in reads listed
 * sites, hidden ones are admins'; a key reads revisions where it may roll back; the trash,
 * a site's events and storage are admins'), and the answers' shapes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { publishSite } from '../../app/publish/publish-site.ts';
import { getSite } from '../../app/queries/get-site.ts';
import { listSites } from '../../app/queries/list-sites.ts';
import { me } from '../../app/queries/me.ts';
import { listMySites } from '../../app/queries/my-sites.ts';
import { revisionDiff } from '../../app/queries/revision-diff.ts';
import { revisionFile, revisionFiles } from '../../app/queries/revision-files.ts';
import { listRevisions } from '../../app/queries/revisions.ts';
import { serviceStorage } from '../../app/queries/service-storage.ts';
import { siteEvents } from '../../app/queries/site-events.ts';
import { listTrash } from '../../app/queries/trash.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { parseQuery } from '../../app/contract/parse.ts';
import { SiteQueryParams } from '../../app/contract/site-query.ts';
import { ForbiddenError, NotFoundError } from '../../domain/errors.ts';
import { admin, files, keyHolder, openApp, viewer, type AppHarness } from '../support/app.ts';

let app: AppHarness;
const roller = keyHolder([{ kind: 'group', target: 'docs', permissions: ['rollback'] }]);
const publisher = keyHolder([{ kind: 'group', target: 'docs', permissions: ['publish'] }]);
let first = '';

beforeAll(async () => {
  app = openApp();
  first = (await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'app', title: 'App' }, files: files({ 'index.html': '<p>1</p>', 'old.css': 'o' }) })).revision;
  await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'app' }, files: files({ 'index.html': '<p>2</p>', 'new.css': 'n' }) });
  await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'secret', title: 'Secret', hidden: true }, files: files({ 'index.html': 's' }) });
  await publishSite(app.deps, admin, { meta: { slug: 'gone', title: 'Gone' }, files: files({ 'index.html': 'g' }) });
  await unpublishSite(app.deps, admin, { site: 'gone' });
  return () => app.close();
});

const listing = async (who: typeof admin, query: Record<string, string> = {}) => JSON.parse((await (await listSites(app.deps, who, parseQuery(SiteQueryParams, query))).body('identity')).toString('utf8'));

describe('queries', () => {
  it('me says who asks and what the instance offers', async () => {
    expect(await me(app.deps, viewer)).toEqual({ user: 'guest', is_admin: false, base_domain: 'localhost', versioning_enabled: true, mcp_enabled: true });
  });

  it('a hidden site is an admin’s to see; a key that may roll back it reads its revisions', async () => {
    expect((await getSite(app.deps, admin, { site: 'docs/secret' })).hidden).toBe(true);
    await expect(getSite(app.deps, viewer, { site: 'docs/secret' })).rejects.toThrow(new NotFoundError('no site docs/secret'));
    expect((await listRevisions(app.deps, roller, { site: 'docs/secret' })).revisions).toHaveLength(1);
    await expect(listRevisions(app.deps, publisher, { site: 'docs/secret' })).rejects.toBeInstanceOf(ForbiddenError);
    // In the trash: not readable by anyone.
    await expect(getSite(app.deps, admin, { site: 'gone' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('listings leave hidden sites out unless an admin asks for them', async () => {
    const slugs = (body: { sites: { slug: string }[] }) => body.sites.map((s) => s.slug).sort();
    expect(slugs(await listing(viewer, { hidden: 'true' }))).toEqual(['app']);
    expect(slugs(await listing(admin, { hidden: 'true' }))).toEqual(['app', 'secret']);
    expect(slugs(await listing(admin))).toEqual(['app']);
    // Admins see who made the last change; everyone else the time alone.
    expect((await listing(admin)).sites[0].updated_by).toEqual({ kind: 'user', name: 'admin' });
    expect((await listing(viewer)).sites[0].updated_by).toBeUndefined();
  });

  it('revisions, files, a file and a diff of a readable site', async () => {
    const { revisions, logical_bytes, stored_bytes } = await listRevisions(app.deps, viewer, { site: 'docs/app' });
    expect(revisions.map((r) => r.current)).toEqual([true, false]);
    expect(logical_bytes).toBeGreaterThan(stored_bytes - 1);
    const tree = await revisionFiles(app.deps, viewer, { site: 'docs/app', revision: first });
    expect(tree.children?.map((c) => c.name)).toEqual(['index.html', 'old.css']);
    const file = await revisionFile(app.deps, viewer, { site: 'docs/app', revision: 'current', path: 'new.css' });
    expect([file.name, file.size]).toEqual(['new.css', 1]);
    file.stream.destroy();
    const diff = await revisionDiff(app.deps, viewer, { site: 'docs/app', from: first, to: 'current' });
    expect(diff).toMatchObject({ added: [{ path: 'new.css', size: 1 }], removed: [{ path: 'old.css', size: 1 }], changed: [{ path: 'index.html' }] });
    await expect(revisionFiles(app.deps, viewer, { site: 'docs/app', revision: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('the trash, a site’s events and storage are admins’: a viewer is refused before the path is read', async () => {
    expect((await listTrash(app.deps, admin)).sites.map((s) => [s.slug, typeof s.purge_at])).toEqual([['gone', 'string']]);
    await expect(listTrash(app.deps, viewer)).rejects.toThrow(new ForbiddenError('this needs an admin'));
    expect((await siteEvents(app.deps, admin, { site: 'gone' })).events.map((e) => e.type)).toEqual(['SitePublished', 'SiteQuarantined']);
    await expect(siteEvents(app.deps, viewer, { site: 'Not/A/Valid/Path/At/All' })).rejects.toThrow(new ForbiddenError('this needs an admin'));
    await expect(serviceStorage(app.deps, publisher)).rejects.toBeInstanceOf(ForbiddenError);
    expect((await serviceStorage(app.deps, admin)).sites).toBe(3);
  });

  it('my sites: what a credential may act on, hidden ones included', async () => {
    const mine = await listMySites(app.deps, roller, {});
    expect(mine.sites.map((s) => s.slug).sort()).toEqual(['app', 'secret']);
    expect((await listMySites(app.deps, keyHolder([{ kind: 'site', target: 'other/x', permissions: ['publish'] }]), {})).count).toBe(0);
  });
});
