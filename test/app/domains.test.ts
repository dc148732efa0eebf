/**
 * app/domains/ in this process (spec §15): attach and detach a custom domain, one site per
 * domain held by the domain-<name> claim stream, and what unpublish, restore and purge do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { attachDomain } from '../../app/domains/attach.ts';
import { CLAIM_PATIENCE_MS } from '../../app/domains/claims.ts';
import { detachDomain } from '../../app/domains/detach.ts';
import { publishSite } from '../../app/publish/publish-site.ts';
import { purgeSite } from '../../app/site-lifecycle/purge.ts';
import { restoreSite } from '../../app/site-lifecycle/restore.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import { parseSitePath } from '../../domain/paths.ts';
import { domainStream, siteStream } from '../../domain/streams.ts';
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
const publish = (app: AppHarness, site: string) => {
  const { group, slug } = parseSitePath(site);
  return publishSite(app.deps, admin, { meta: { group, slug, title: site }, files: files({ 'index.html': `<p>${site}</p>` }) });
};
const attach = (app: AppHarness, site: string, domain: string) => attachDomain(app.deps, admin, { site, domain });
const detach = (app: AppHarness, site: string, domain: string) => detachDomain(app.deps, admin, { site, domain });
const typesOf = async (app: AppHarness, stream: string) => (await app.events.readStream(stream)).events.map((e) => e.type);

describe('custom domains: attach and detach (spec §15)', () => {
  it('only admins, refused alike whether or not the site exists, before the domain is even read (spec §2)', async () => {
    const app = open();
    await publish(app, 'docs/app');
    const publisher = keyHolder([{ kind: 'group', target: '', permissions: ['publish', 'unpublish', 'patch', 'rollback', 'purge'] }]);
    for (const who of [viewer, publisher]) {
      for (const site of ['docs/app', 'docs/missing', 'Not A Path']) {
        for (const domain of ['docs.acme.com', 'NOT A DOMAIN']) {
          await expect(attachDomain(app.deps, who, { site, domain })).rejects.toThrow(new ForbiddenError('this needs an admin'));
          await expect(detachDomain(app.deps, who, { site, domain })).rejects.toThrow(new ForbiddenError('this needs an admin'));
        }
      }
    }
    expect(await app.events.streamRevision(domainStream('docs.acme.com'))).toBe(-1);
  });

  it('attaches a domain: Site.domains lists it, sorted; attaching it again changes nothing', async () => {
    const app = open();
    await publish(app, 'docs/app');
    expect((await app.deps.shapes.site((await app.readModel.getSite('docs/app'))!, admin)).domains).toEqual([]);
    expect((await attach(app, 'docs/app', 'www.acme.com')).domains).toEqual(['www.acme.com']);
    expect((await attach(app, 'docs/app', 'docs.acme.com')).domains).toEqual(['docs.acme.com', 'www.acme.com']);
    const before = await app.events.streamRevision(siteStream({ group: 'docs', slug: 'app' }));
    expect((await attach(app, 'docs/app', 'docs.acme.com')).domains).toEqual(['docs.acme.com', 'www.acme.com']);
    expect(await app.events.streamRevision(siteStream({ group: 'docs', slug: 'app' }))).toBe(before);
    expect((await app.readModel.siteByDomain('docs.acme.com'))?.path).toBe('docs/app');
    expect(await typesOf(app, domainStream('docs.acme.com'))).toEqual(['DomainClaimed']);
  });

  it('user mistakes: bad names are 400 and record nothing', async () => {
    const app = open();
    await publish(app, 'docs/app');
    const bad = ['', 'Docs.Acme.com', 'docs.acme.com.', 'docs.acme.com:443', '*.acme.com', 'acme', '10.0.0.1', '[::1]', 'docs..acme.com', '-x.acme.com', 'dócs.acme.com',
      `${'a'.repeat(64)}.acme.com`, `${'a.'.repeat(127)}com`, 'localhost', 'x.localhost', 'alias.test', 'app.docs.alias.test'];
    for (const domain of bad) await expect(attach(app, 'docs/app', domain), domain).rejects.toBeInstanceOf(ValidationError);
    await expect(detach(app, 'docs/app', 'Docs.Acme.com')).rejects.toBeInstanceOf(ValidationError);
    expect((await app.readModel.getSite('docs/app'))?.domains).toBeUndefined();
  });

  it('a domain belongs to one site: another site asking gets 409, until it is detached', async () => {
    const app = open();
    await publish(app, 'docs/app');
    await publish(app, 'blog');
    await attach(app, 'docs/app', 'docs.acme.com');
    await expect(attach(app, 'blog', 'docs.acme.com')).rejects.toThrow(new ConflictError('docs.acme.com is attached to docs/app'));
    expect((await app.readModel.getSite('blog'))?.domains).toBeUndefined();
    await detach(app, 'docs/app', 'docs.acme.com');
    expect((await attach(app, 'blog', 'docs.acme.com')).domains).toEqual(['docs.acme.com']);
    expect((await app.readModel.siteByDomain('docs.acme.com'))?.path).toBe('blog');
    expect(await typesOf(app, domainStream('docs.acme.com'))).toEqual(['DomainClaimed', 'DomainReleased', 'DomainClaimed']);
  });

  it('attack: two sites attaching one domain at the same moment, many times over: exactly one wins each time', async () => {
    const app = open();
    const sites = ['a', 'b', 'c', 'd'];
    for (const s of sites) await publish(app, s);
    for (let round = 0; round < 5; round++) {
      const domain = `race${round}.acme.com`;
      const outcomes = await Promise.allSettled(sites.map((s) => attach(app, s, domain)));
      const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [sites[i]] : []));
      expect(won, domain).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason, domain).toBeInstanceOf(ConflictError);
      const holders = [];
      for (const s of sites) if ((await app.readModel.getSite(s))?.domains?.includes(domain)) holders.push(s);
      expect(holders, domain).toEqual(won);
      expect((await app.readModel.siteByDomain(domain))?.path).toBe(won[0]);
    }
  });

  it('at most 10 domains per site: the 11th is 409', async () => {
    const app = open();
    await publish(app, 'docs/app');
    for (let i = 0; i < 10; i++) await attach(app, 'docs/app', `d${i}.acme.com`);
    await expect(attach(app, 'docs/app', 'd10.acme.com')).rejects.toBeInstanceOf(ConflictError);
    // Nothing claimed for the refused one: it is free for another site.
    expect(await app.events.streamRevision(domainStream('d10.acme.com'))).toBe(-1);
  });

  it('the site must be live to attach; detaching a domain it does not have is 404', async () => {
    const app = open();
    await expect(attach(app, 'docs/missing', 'docs.acme.com')).rejects.toThrow(new NotFoundError('no site docs/missing'));
    await publish(app, 'docs/app');
    await expect(detach(app, 'docs/app', 'docs.acme.com')).rejects.toThrow(new NotFoundError('docs.acme.com is not attached to docs/app'));
    await unpublishSite(app.deps, admin, { site: 'docs/app' });
    await expect(attach(app, 'docs/app', 'docs.acme.com')).rejects.toThrow(new NotFoundError('site docs/app is in the trash'));
    expect(await app.events.streamRevision(domainStream('docs.acme.com'))).toBe(-1);
  });

  it('unpublish keeps the domain (no other site may take it), restore brings it back, purge detaches and frees it', async () => {
    const app = open();
    await publish(app, 'docs/app');
    await publish(app, 'blog');
    await attach(app, 'docs/app', 'docs.acme.com');
    await unpublishSite(app.deps, admin, { site: 'docs/app' });
    expect((await app.readModel.siteByDomain('docs.acme.com'))?.status).toBe('quarantined');
    await expect(attach(app, 'blog', 'docs.acme.com')).rejects.toThrow(/attached to docs\/app \(in the trash/);
    expect((await restoreSite(app.deps, admin, { site: 'docs/app' })).domains).toEqual(['docs.acme.com']);
    await unpublishSite(app.deps, admin, { site: 'docs/app' });
    await purgeSite(app.deps, admin, { site: 'docs/app' });
    expect(await app.readModel.siteByDomain('docs.acme.com')).toBeUndefined();
    expect((await typesOf(app, siteStream({ group: 'docs', slug: 'app' }))).slice(-2)).toEqual(['DomainDetached', 'SitePurged']);
    expect(await typesOf(app, domainStream('docs.acme.com'))).toEqual(['DomainClaimed', 'DomainReleased']);
    expect((await attach(app, 'blog', 'docs.acme.com')).domains).toEqual(['docs.acme.com']);
    // A site re-created at the purged path starts without domains.
    expect((await publish(app, 'docs/app')).site.domains).toEqual([]);
  });

  it('a domain can be detached from a site in the trash, which frees it without restoring the site', async () => {
    const app = open();
    await publish(app, 'docs/app');
    await publish(app, 'blog');
    await attach(app, 'docs/app', 'docs.acme.com');
    await unpublishSite(app.deps, admin, { site: 'docs/app' });
    await detach(app, 'docs/app', 'docs.acme.com');
    expect((await app.readModel.getSite('docs/app'))?.status).toBe('quarantined');
    expect((await attach(app, 'blog', 'docs.acme.com')).domains).toEqual(['docs.acme.com']);
    expect((await restoreSite(app.deps, admin, { site: 'docs/app' })).domains).toEqual([]);
  });

  it('fault: an attach that claimed and crashed before DomainAttached blocks the name only until it is seen to be stalled', async () => {
    const app = open();
    await publish(app, 'docs/app');
    await publish(app, 'blog');
    const stream = siteStream({ group: 'docs', slug: 'app' });
    const { revision } = await app.events.readStream(stream);
    const siteId = (await app.readModel.getSite('docs/app'))!.siteId;
    // The claim half of an attach of docs/app, as a crashed instance leaves it.
    await app.events.append(domainStream('docs.acme.com'), [
      { type: 'DomainClaimed', data: { domain: 'docs.acme.com', site: 'docs/app', siteId, siteRevision: revision }, meta: { actor: admin.actor, at: app.now.toISOString() } },
    ], -1);
    // While the attach may still land, nobody else takes the name.
    await expect(attach(app, 'blog', 'docs.acme.com')).rejects.toThrow(new ConflictError('docs.acme.com is being attached to docs/app right now'));
    // The same request sent again completes it.
    expect((await attach(app, 'docs/app', 'docs.acme.com')).domains).toEqual(['docs.acme.com']);
    await detach(app, 'docs/app', 'docs.acme.com');

    // Crashed again; this time the stall outlasts the patience: another site ends it and takes the name.
    const again = await app.events.readStream(stream);
    await app.events.append(domainStream('docs.acme.com'), [
      { type: 'DomainClaimed', data: { domain: 'docs.acme.com', site: 'docs/app', siteId, siteRevision: again.revision }, meta: { actor: admin.actor, at: app.now.toISOString() } },
    ], await app.events.streamRevision(domainStream('docs.acme.com')));
    app.now = new Date(app.now.getTime() + CLAIM_PATIENCE_MS + 1);
    expect((await attach(app, 'blog', 'docs.acme.com')).domains).toEqual(['docs.acme.com']);
    const ended = (await app.events.readStream(stream)).events.at(-1)!;
    expect(ended).toMatchObject({ type: 'DomainDetached', data: { domain: 'docs.acme.com', reason: 'unfinished' } });
    expect((await app.readModel.getSite('docs/app'))?.domains).toBeUndefined();
    // The stalled attach, had it woken up, could never land: its expected revision is gone.
    await expect(
      app.events.append(stream, [{ type: 'DomainAttached', data: { siteId, domain: 'docs.acme.com' }, meta: { actor: admin.actor, at: app.now.toISOString() } }], again.revision),
    ).rejects.toThrow();
  });

  it('fault: a claim left by a detach that crashed before releasing it is taken over at once (its site moved on without the domain)', async () => {
    const app = open();
    await publish(app, 'docs/app');
    await publish(app, 'blog');
    await attach(app, 'docs/app', 'docs.acme.com');
    // The detach half only: DomainDetached recorded on the site, claim not released.
    const stream = siteStream({ group: 'docs', slug: 'app' });
    const siteId = (await app.readModel.getSite('docs/app'))!.siteId;
    await app.events.append(stream, [{ type: 'DomainDetached', data: { siteId, domain: 'docs.acme.com' }, meta: { actor: admin.actor, at: app.now.toISOString() } }], await app.events.streamRevision(stream));
    expect((await attach(app, 'blog', 'docs.acme.com')).domains).toEqual(['docs.acme.com']);
  });
});
