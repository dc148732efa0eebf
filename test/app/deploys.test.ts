/**
 * app/deploys/ in this process: a deploy asks for what this site lacks, takes each upload
 * only under its own digest, and publishes through the same path as an archive.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeploy } from '../../app/deploys/create.ts';
import { publishDeploy } from '../../app/deploys/publish.ts';
import { uploadDeployFile } from '../../app/deploys/upload.ts';
import { collectExpiredDeploys } from '../../app/jobs/gc.ts';
import { publishSite } from '../../app/publish/publish-site.ts';
import type { PublishResult } from '../../app/contract/publish.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { systemIdentity } from '../../domain/auth.ts';
import { MissingFilesError } from '../../domain/deploy/deploy.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import { admin, files, keyHolder, openApp, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const ci = keyHolder([{ kind: 'group', target: 'docs', permissions: ['publish', 'unpublish'] }]);
const other = keyHolder([{ kind: 'group', target: 'docs', permissions: ['publish'] }], 'other');
const manifest = (site: Record<string, string>) => Object.fromEntries(Object.entries(site).map(([p, c]) => [p, sha(c)]));
const upload = (app: AppHarness, who: typeof ci, deploy: string, content: string) =>
  uploadDeployFile(app.deps, who, { deploy, digest: sha(content), body: Readable.from([Buffer.from(content)]), declaredSize: Buffer.byteLength(content) });

describe('incremental deploys', () => {
  it('asks only for what this site lacks, refuses a body under another digest, and publishes like an archive', async () => {
    const app = openApp();
    opened.push(app);
    await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'app', title: 'App' }, files: files({ 'index.html': 'v1', 'keep.css': 'k' }) });
    const site = { 'index.html': 'v2', 'keep.css': 'k', 'new.js': 'n' };
    const created = await createDeploy(app.deps, ci, { meta: { group: 'docs', slug: 'app' }, files: manifest(site) });
    expect([...created.required].sort()).toEqual([sha('v2'), sha('n')].sort());
    await expect(uploadDeployFile(app.deps, ci, { deploy: created.id, digest: sha('n'), body: Readable.from([Buffer.from('not n')]) })).rejects.toBeInstanceOf(ValidationError);
    await expect(publishDeploy(app.deps, ci, { deploy: created.id })).rejects.toBeInstanceOf(MissingFilesError);
    // Another key with the same grant does not see it.
    await expect(upload(app, other, created.id, 'n')).rejects.toBeInstanceOf(NotFoundError);
    await upload(app, ci, created.id, 'v2');
    await upload(app, ci, created.id, 'n');
    const published = (await publishDeploy(app.deps, ci, { deploy: created.id })) as PublishResult;
    expect(published).toMatchObject({ group: 'docs', slug: 'app', unchanged: false, site: { size: 4 } });
    await expect(publishDeploy(app.deps, ci, { deploy: created.id })).rejects.toBeInstanceOf(ConflictError);
    // The same files again: nothing required, nothing recorded.
    const again = await createDeploy(app.deps, ci, { meta: { group: 'docs', slug: 'app' }, files: manifest(site) });
    expect(again.required).toEqual([]);
    expect(await publishDeploy(app.deps, ci, { deploy: again.id })).toMatchObject({ unchanged: true, revision: published.revision });
  });

  it('needs publish on the target before anything is looked up; a path in the trash is refused at publish', async () => {
    const app = openApp();
    opened.push(app);
    await expect(createDeploy(app.deps, ci, { meta: { group: 'other', slug: 'x', title: 'X' }, files: manifest({ 'index.html': 'x' }) })).rejects.toBeInstanceOf(ForbiddenError);
    await publishSite(app.deps, admin, { meta: { group: 'docs', slug: 'legal', title: 'Legal' }, files: files({ 'index.html': 'l' }) });
    const created = await createDeploy(app.deps, ci, { meta: { group: 'docs', slug: 'legal' }, files: manifest({ 'index.html': 'l2' }) });
    await upload(app, ci, created.id, 'l2');
    await unpublishSite(app.deps, ci, { site: 'docs/legal' });
    await expect(publishDeploy(app.deps, ci, { deploy: created.id })).rejects.toThrow(new ConflictError('docs/legal is in the trash: restore it or purge it first'));
  });

  it('an expired deploy ends and its uploads nothing else holds are collected', async () => {
    const app = openApp({ limits: { deployTtlMs: 1000 } });
    opened.push(app);
    const created = await createDeploy(app.deps, ci, { meta: { group: 'docs', slug: 'tmp', title: 'T' }, files: manifest({ 'index.html': 'tmp' }) });
    await upload(app, ci, created.id, 'tmp');
    expect(await app.deps.blobs.has(sha('tmp'))).toBe(true);
    app.now = new Date(app.now.getTime() + 2000);
    expect(await collectExpiredDeploys(app.deps, systemIdentity('deploy-expiry'))).toMatchObject({ deploys: 1 });
    expect(await app.deps.blobs.has(sha('tmp'))).toBe(false);
    await expect(publishDeploy(app.deps, ci, { deploy: created.id })).rejects.toBeInstanceOf(NotFoundError);
  });
});
