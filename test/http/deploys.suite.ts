/**
 * Incremental deploys (spec §10) over HTTP, against the real service: every rule of the
 * contract, run once with the folder file store and once with S3 (s3rver), since the
 * upload's digest check lives in each blob adapter. Expiry and garbage collection run on a
 * second service with a short SITES_DEPLOY_TTL.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, checkResponse } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

/** How a suite reaches its file store, whichever adapter runs behind the service. */
export type StoreProbe = { has(hash: string): Promise<boolean>; close(): Promise<void> };

export type DeployFixture = {
  /** Extra environment of the service (the S3 variables, or nothing for the folder store). */
  readonly env: Record<string, string>;
  /** A view of the store the service at `dataDir` uses. */
  probe(dataDir: string): Promise<StoreProbe>;
  dispose(): Promise<void>;
};

export const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

type Files = Record<string, string | Buffer>;
type Answer = { status: number; body: any };

export function deployApi(base: () => string) {
  const parse = (text: string): unknown => {
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return text;
    }
  };
  return {
    create: (key: string | undefined, meta: Record<string, unknown>, files: Record<string, string>): Promise<Answer> =>
      call(base(), 'POST', '/ingest/deploys', { key, body: { meta, files } }),
    manifest: (files: Files): Record<string, string> => Object.fromEntries(Object.entries(files).map(([p, c]) => [p, sha256(c)])),
    async put(key: string, id: string, digest: string, content: string | Buffer): Promise<Answer> {
      const path = `/ingest/deploys/${encodeURIComponent(id)}/files/${digest}`;
      const res = await fetch(new URL(path, base()), { method: 'PUT', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' }, body: typeof content === 'string' ? content : new Uint8Array(content) });
      const text = await res.text();
      const body = parse(text);
      checkResponse('PUT', path, { status: res.status, type: res.headers.get('content-type') ?? '', text, body });
      return { status: res.status, body };
    },
    publish: (key: string, id: string): Promise<Answer> => call(base(), 'POST', `/ingest/deploys/${encodeURIComponent(id)}/publish`, { key }),
  };
}

export function deploySuite(name: string, open: () => Promise<DeployFixture>): void {
  describe(`incremental deploys (spec §10): ${name} file store`, () => {
    let fx: DeployFixture;
    let svc: RunningService;
    let store: StoreProbe;
    let admin: string;
    let docs: string;
    let docsToo: string;
    let other: string;
    const api = deployApi(() => svc.url);

    beforeAll(async () => {
      fx = await open();
      svc = await startService({
        env: { ...fx.env, SITES_MAX_UPLOAD_BYTES: '200000', SITES_MAX_EXTRACT_BYTES: '500000', SITES_MAX_EXTRACT_ENTRIES: '20', SITES_VERSIONING_KEEP: '2' },
      });
      store = await fx.probe(svc.dataDir);
      admin = await svc.createKey(['--name', 'admin', '--admin']);
      docs = await svc.createKey(['--name', 'docs', '--grant', 'docs:publish,unpublish']);
      docsToo = await svc.createKey(['--name', 'docs-too', '--grant', 'docs:publish']);
      other = await svc.createKey(['--name', 'other', '--grant', 'other:publish']);
    });
    afterAll(async () => {
      await store?.close();
      await svc?.stop();
      await fx?.dispose();
    });

    /** Creates a deploy, uploads what it asks for, publishes. */
    async function deployAll(key: string, meta: Record<string, unknown>, files: Files): Promise<{ created: Answer; published: Answer }> {
      const manifest = api.manifest(files);
      const created = await api.create(key, meta, manifest);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const byDigest = new Map(Object.values(files).map((c) => [sha256(c), c]));
      for (const digest of created.body.required as string[]) expect((await api.put(key, created.body.id, digest, byDigest.get(digest)!)).status).toBe(204);
      return { created, published: await api.publish(key, created.body.id) };
    }

    const page = (text: string) => `<!doctype html><title>${text}</title><h1>${text}</h1>`;

    it('create → upload what is required → publish: 201 {id, required, expires_at}, 204 per upload, 200 PublishResult, served', async () => {
      const files = { 'index.html': page('one'), 'css/a.css': 'a{}', 'css/copy.css': 'a{}', 'img/x.bin': Buffer.alloc(1000, 3) };
      const manifest = api.manifest(files);
      const created = await api.create(docs, { group: 'docs', slug: 'one', title: 'One', tags: ['t'] }, manifest);
      expect(created.status).toBe(201);
      expect(created.body.id).toMatch(/^[\w-]{16,}$/);
      // Each missing content once, though two paths share one.
      expect([...created.body.required].sort()).toEqual([...new Set(Object.values(manifest))].sort());
      const expires = Date.parse(created.body.expires_at) - Date.now();
      expect(expires).toBeGreaterThan(59 * 60_000);
      expect(expires).toBeLessThanOrEqual(60 * 60_000);
      for (const [path, content] of Object.entries(files)) {
        expect((await api.put(docs, created.body.id, sha256(content), content)).status, path).toBe(204); // the copy again: 204 too
      }
      const done = await api.publish(docs, created.body.id);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ url: svc.siteUrl('docs/one'), group: 'docs', slug: 'one', site: { title: 'One', tags: ['t'], size: page('one').length + 3 + 3 + 1000 } });
      expect(done.body.revision).toMatch(/^\d{8}T\d{6}\.\d{9}Z$/);
      expect(await (await fetch(svc.siteUrl('docs/one'))).text()).toBe(page('one'));
      expect(await (await fetch(`${svc.siteUrl('docs/one')}css/copy.css`)).text()).toBe('a{}');
    });

    it('needs a key with publish on the target, checked before anything is looked up', async () => {
      const manifest = api.manifest({ 'index.html': page('auth') });
      expect((await api.create(undefined, { group: 'docs', slug: 'auth', title: 'A' }, manifest)).status).toBe(401);
      expect((await api.create('key_nope', { group: 'docs', slug: 'auth', title: 'A' }, manifest)).status).toBe(401);
      // A key without the grant: 403 whether or not the site exists (docs/one does).
      for (const slug of ['one', 'never-made']) {
        const refused = await api.create(other, { group: 'docs', slug, title: 'A' }, manifest);
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: 'forbidden' });
      }
      const res = await fetch(`${svc.url}/ingest/deploys/anything/files/${'a'.repeat(64)}`, { method: 'PUT', body: 'x' });
      expect(res.status).toBe(401);
      expect((await call(svc.url, 'POST', '/ingest/deploys/anything/publish')).status).toBe(401);
    });

    it('refuses bad files with 400 naming the offending path; too many paths with 413', async () => {
      const good = sha256('x');
      const meta = { group: 'docs', slug: 'bad', title: 'Bad' };
      const refusals: [Record<string, string>, RegExp][] = [
        [{ 'index.html': good, '../up.html': good }, /"\.\.\/up\.html"/],
        [{ 'index.html': good, 'a/../../b': good }, /"a\/\.\.\/\.\.\/b"/],
        [{ 'index.html': good, '/etc/passwd': good }, /"\/etc\/passwd".*absolute/],
        [{ 'index.html': good, 'a\\b.css': good }, /"a\\\\b\.css".*backslash/],
        [{ 'index.html': good, 'nul\u0000.css': good }, /"nul\\u0000\.css".*NUL/],
        [{ 'index.html': good, 'C:/x.css': good }, /"C:\/x\.css"/],
        [{ 'index.html': good, 'css/': good }, /"css\/".*slash/],
        [{ 'index.html': good, './': good }, /"\.\/"/],
        [{ 'index.html': good, 'a.css': good, './a.css': good }, /"a\.css" twice/],
        [{ 'index.html': good, a: good, 'a/b.css': good }, /"a\/b\.css".*"a"/],
        [{ 'index.html': good, 'x.css': good.toUpperCase() }, /"x\.css".*64 lowercase hex/],
        [{ 'index.html': good, 'y.css': good.slice(1) }, /"y\.css".*64 lowercase hex/],
        [{ 'index.html': 'not-a-digest' }, /"index\.html".*64 lowercase hex/],
        [{ 'page.html': good }, /index\.html/],
        [{}, /index\.html/],
      ];
      for (const [files, message] of refusals) {
        const res = await api.create(docs, meta, files);
        expect(res.status, JSON.stringify(files)).toBe(400);
        expect(res.body.code).toBe('invalid');
        expect(res.body.error, JSON.stringify(files)).toMatch(message);
      }
      const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [i === 0 ? 'index.html' : `f${i}.css`, sha256(`f${i}`)]));
      const tooMany = await api.create(docs, meta, many);
      expect(tooMany.status).toBe(413);
      expect(tooMany.body).toMatchObject({ code: 'too_large' });
      expect((await api.create(docs, meta, Object.fromEntries(Object.entries(many).slice(0, 20)))).status).toBe(201);
      // Bad meta as a publish refuses it; a new site needs a title before anything is uploaded.
      expect((await api.create(docs, { group: 'docs', slug: 'Bad Slug', title: 'x' }, { 'index.html': good })).status).toBe(400);
      expect((await api.create(docs, { group: 'docs', slug: 'untitled' }, { 'index.html': good })).body.error).toMatch(/title/);
      expect((await call(svc.url, 'POST', '/ingest/deploys', { key: docs, raw: '{"meta":' })).status).toBe(400);
    });

    it('an upload must hash to its URL digest (400, nothing stored); an unlisted digest is 404', async () => {
      const files = { 'index.html': page('verify'), 'app.js': 'console.log(1)' };
      const manifest = api.manifest(files);
      const { body } = await api.create(docs, { group: 'docs', slug: 'verify', title: 'V' }, manifest);
      const wrong = 'console.log(2)';
      const refused = await api.put(docs, body.id, manifest['app.js']!, wrong);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid' });
      expect(refused.body.error).toContain(manifest['app.js']);
      expect(await store.has(manifest['app.js']!)).toBe(false);
      expect(await store.has(sha256(wrong))).toBe(false);
      // Large bodies stream through the store, which checks before the blob becomes visible.
      const big = Buffer.alloc(150_000, 9);
      const { body: d2 } = await api.create(docs, { group: 'docs', slug: 'verify', title: 'V' }, { ...manifest, 'big.bin': sha256(big) });
      const bigWrong = Buffer.alloc(150_000, 8);
      expect((await api.put(docs, d2.id, sha256(big), bigWrong)).status).toBe(400);
      expect(await store.has(sha256(big))).toBe(false);
      expect(await store.has(sha256(bigWrong))).toBe(false);
      expect((await api.put(docs, d2.id, sha256(big), big)).status).toBe(204);
      expect(await store.has(sha256(big))).toBe(true);
      // Not in this deploy's manifest: 404, even for content the store holds.
      const unlisted = await api.put(docs, body.id, sha256(big), big);
      expect(unlisted.status).toBe(404);
      expect(unlisted.body).toMatchObject({ code: 'not_found' });
      expect((await api.put(docs, body.id, 'NOT-A-DIGEST', 'x')).status).toBe(400);
    });

    it('413 for a body over SITES_MAX_UPLOAD_BYTES and for a deploy whose uploads pass SITES_MAX_EXTRACT_BYTES', async () => {
      const huge = Buffer.alloc(200_001, 1);
      const parts = [0, 1, 2].map((i) => Buffer.alloc(190_000, 10 + i));
      const files = { 'index.html': page('big'), 'huge.bin': huge, 'p0.bin': parts[0]!, 'p1.bin': parts[1]!, 'p2.bin': parts[2]! };
      const { body } = await api.create(docs, { group: 'docs', slug: 'big', title: 'Big' }, api.manifest(files));
      const tooBig = await api.put(docs, body.id, sha256(huge), huge);
      expect(tooBig.status).toBe(413);
      expect(tooBig.body).toMatchObject({ code: 'too_large' });
      expect(await store.has(sha256(huge))).toBe(false);
      expect((await api.put(docs, body.id, sha256(parts[0]!), parts[0]!)).status).toBe(204);
      expect((await api.put(docs, body.id, sha256(parts[1]!), parts[1]!)).status).toBe(204);
      // A retry of a counted content is not counted twice.
      expect((await api.put(docs, body.id, sha256(parts[1]!), parts[1]!)).status).toBe(204);
      const over = await api.put(docs, body.id, sha256(parts[2]!), parts[2]!);
      expect(over.status).toBe(413);
      expect(over.body.error).toMatch(/SITES_MAX_EXTRACT_BYTES/);
    });

    it('publish with contents missing: 409 conflict with "missing"; once complete it publishes', async () => {
      const files = { 'index.html': page('missing'), 'a.css': 'a{}', 'b.css': 'b{}' };
      const manifest = api.manifest(files);
      const { body } = await api.create(docs, { group: 'docs', slug: 'missing', title: 'M' }, manifest);
      expect((await api.put(docs, body.id, manifest['index.html']!, files['index.html'])).status).toBe(204);
      const early = await api.publish(docs, body.id);
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('conflict');
      expect([...early.body.missing].sort()).toEqual([manifest['a.css'], manifest['b.css']].sort());
      expect((await call(svc.url, 'GET', '/api/sites/docs/missing', { key: admin })).status).toBe(404); // nothing published
      await api.put(docs, body.id, manifest['a.css']!, files['a.css']);
      expect((await api.publish(docs, body.id)).body.missing).toEqual([manifest['b.css']]);
      await api.put(docs, body.id, manifest['b.css']!, files['b.css']);
      expect((await api.publish(docs, body.id)).status).toBe(200);
    });

    it('only the key that created a deploy, or an admin key, may use it: any other key gets 404', async () => {
      const files = { 'index.html': page('mine'), 'x.css': 'x{}' };
      const manifest = api.manifest(files);
      const { body } = await api.create(docs, { group: 'docs', slug: 'mine', title: 'Mine' }, manifest);
      // docsToo has publish on docs too, but did not create it; other has no grant at all.
      for (const key of [docsToo, other]) {
        const put = await api.put(key, body.id, manifest['x.css']!, files['x.css']);
        expect(put.status).toBe(404);
        expect(put.body.code).toBe('not_found');
        expect((await api.publish(key, body.id)).status).toBe(404);
      }
      expect((await api.put(docs, body.id, manifest['x.css']!, files['x.css'])).status).toBe(204);
      expect((await api.put(admin, body.id, manifest['index.html']!, files['index.html'])).status).toBe(204);
      const done = await api.publish(admin, body.id);
      expect(done.status).toBe(200);
      expect((await api.publish(admin, 'no-such-deploy')).status).toBe(404);
    });

    it('a published deploy is finished: another upload or publish is 409; two publishes at once make one revision', async () => {
      const files = { 'index.html': page('finished') };
      const { created, published } = await deployAll(docs, { group: 'docs', slug: 'finished', title: 'F' }, files);
      expect(published.status).toBe(200);
      const again = await api.publish(docs, created.body.id);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('conflict');
      expect((await api.put(docs, created.body.id, sha256(files['index.html']), files['index.html'])).status).toBe(409);

      const next = await api.create(docs, { group: 'docs', slug: 'finished' }, api.manifest({ 'index.html': page('twice') }));
      await api.put(docs, next.body.id, sha256(page('twice')), page('twice'));
      const both = await Promise.all([api.publish(docs, next.body.id), api.publish(docs, next.body.id)]);
      expect(both.map((a) => a.status).sort()).toEqual([200, 409]);
      expect((await call(svc.url, 'GET', '/api/sites/docs/finished/revisions', { key: admin })).body.revisions).toHaveLength(2);
    });

    it('required: only what no revision of this site holds (live, archived or in the trash)', async () => {
      const v1 = { 'index.html': page('v1'), 'keep.css': 'keep{}', 'old.css': 'old{}' };
      expect((await deployAll(docs, { group: 'docs', slug: 'req', title: 'R' }, v1)).published.status).toBe(200);
      // v2 changes one file: only that content is required.
      const v2 = { ...v1, 'index.html': page('v2') };
      delete (v2 as Record<string, string>)['old.css'];
      const second = await deployAll(docs, { group: 'docs', slug: 'req' }, v2);
      expect(second.created.body.required).toEqual([sha256(page('v2'))]);
      expect(second.published.status).toBe(200);
      // Back to v1 content: its revision is archived, so nothing is required.
      const back = await api.create(docs, { group: 'docs', slug: 'req' }, api.manifest(v1));
      expect(back.body.required).toEqual([]);
      expect((await api.publish(docs, back.body.id)).status).toBe(200);
      expect(await (await fetch(`${svc.siteUrl('docs/req')}old.css`)).text()).toBe('old{}');
      // In the trash: the site's files still count, but publishing there is refused (spec §4).
      expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/req', { key: docs })).status).toBe(204);
      const trashed = await api.create(docs, { group: 'docs', slug: 'req' }, api.manifest({ ...v1, 'new.css': 'n{}' }));
      expect(trashed.body.required).toEqual([sha256('n{}')]);
      await api.put(docs, trashed.body.id, sha256('n{}'), 'n{}');
      const refused = await api.publish(docs, trashed.body.id);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ error: 'docs/req is in the trash: restore it or purge it first', code: 'conflict' });
      expect((await call(svc.url, 'GET', '/api/sites/deleted', { key: admin })).body.sites.some((s: any) => s.slug === 'req')).toBe(true);
    });

    it('a deploy of the live files records nothing and answers unchanged; an empty file is an ordinary file', async () => {
      const files = { 'index.html': '', '.nojekyll': '', 'a.css': 'a{}' };
      const first = await deployAll(docs, { group: 'docs', slug: 'same', title: 'Same' }, files);
      expect(first.published.status, JSON.stringify(first.published.body)).toBe(200);
      expect(first.published.body.unchanged).toBe(false);
      const served = await fetch(svc.siteUrl('docs/same'));
      expect(served.headers.get('content-length')).toBe('0');
      const events = (await call(svc.url, 'GET', '/api/sites/docs/same/events', { user: 'admin' })).body.events;
      const again = await deployAll(docs, { group: 'docs', slug: 'same' }, files);
      expect(again.created.body.required).toEqual([]);
      expect(again.published.status).toBe(200);
      expect(again.published.body).toMatchObject({ unchanged: true, revision: first.published.body.revision, updated_at: first.published.body.updated_at });
      expect((await call(svc.url, 'GET', '/api/sites/docs/same/events', { user: 'admin' })).body.events).toEqual(events);
    });

    it('required never reveals other sites\' files, and a deploy cannot borrow them without the bytes', async () => {
      const secret = `<p>another publisher's file ${Math.random()}</p>`;
      expect((await publish(svc.url, admin, { group: 'other', slug: 'theirs', title: 'T' }, { files: { 'index.html': page('t'), 'secret.html': secret } })).status).toBe(200);
      const probe = await api.create(docs, { group: 'docs', slug: 'probe', title: 'P' }, { 'index.html': sha256(page('p')), 'guess.html': sha256(secret) });
      expect(probe.status).toBe(201);
      // Exactly as if the store had never seen it.
      expect([...probe.body.required].sort()).toEqual([sha256(page('p')), sha256(secret)].sort());
      await api.put(docs, probe.body.id, sha256(page('p')), page('p'));
      const refused = await api.publish(docs, probe.body.id);
      expect(refused.status).toBe(409);
      expect(refused.body.missing).toEqual([sha256(secret)]);
      // With the bytes, it is an ordinary upload, stored once.
      expect((await api.put(docs, probe.body.id, sha256(secret), secret)).status).toBe(204);
      expect((await api.publish(docs, probe.body.id)).status).toBe(200);
    });

    it('is indistinguishable from an archive publish: same events, manifest, size, favicon', async () => {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>';
      const files = { 'index.html': `<link rel="icon" href="icon.svg">${page('twin')}`, 'icon.svg': svg, 'sub/index.html': page('sub') };
      const viaArchive = await publish(svc.url, admin, { group: 'twins', slug: 'archive', title: 'Twin' }, { files });
      expect(viaArchive.status).toBe(200);
      const viaDeploy = (await deployAll(admin, { group: 'twins', slug: 'deploy', title: 'Twin' }, files)).published;
      expect(viaDeploy.status).toBe(200);
      const strip = (site: Record<string, unknown>) => {
        const { id: _i, slug: _s, url: _u, created_at: _c, updated_at: _a, ...rest } = site;
        return rest;
      };
      expect(strip(viaDeploy.body.site)).toEqual(strip(viaArchive.body.site));
      expect(viaDeploy.body.site.has_favicon).toBe(true);
      const icon = await fetch(`${svc.url}/api/sites/twins/deploy/favicon`, { headers: { Authorization: `Bearer ${admin}` } });
      expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      const events = async (slug: string) => (await call(svc.url, 'GET', `/api/sites/twins/${slug}/events`, { key: admin })).body.events as { type: string; data: any }[];
      const [a, d] = [await events('archive'), await events('deploy')];
      expect(d.map((e) => e.type)).toEqual(a.map((e) => e.type));
      const published = (list: typeof a) => list.find((e) => e.type === 'SitePublished')!.data;
      const revision = (data: any) => ({ ...data.revision, id: undefined });
      expect(revision(published(d))).toEqual(revision(published(a))); // same manifest hash, files, size, favicon
      expect(await (await fetch(`${svc.siteUrl('twins/deploy')}sub/`)).text()).toBe(page('sub'));
    });

    it('two deploys racing to one site: each answers 200 or 409, and the site shows one of them whole', async () => {
      const version = (v: string) => ({ 'index.html': page(v), 'a.css': `a-${v}{}`, 'b/c.js': `c(${JSON.stringify(v)})` });
      const versions = ['red', 'blue'].map(version);
      const prepared = await Promise.all(
        versions.map(async (files) => {
          const { body } = await api.create(docs, { group: 'docs', slug: 'race', title: 'Race' }, api.manifest(files));
          for (const content of Object.values(files)) await api.put(docs, body.id, sha256(content), content);
          return body.id as string;
        }),
      );
      for (let round = 0; round < 3; round++) {
        const again = await Promise.all(
          versions.map(async (files) => {
            const { body } = await api.create(docs, { group: 'docs', slug: 'race', title: 'Race' }, api.manifest(files));
            return body.id as string;
          }),
        );
        const ids = round === 0 ? prepared : again;
        const answers = await Promise.all(ids.map((id) => api.publish(docs, id)));
        for (const a of answers) expect([200, 409]).toContain(a.status);
        expect(answers.some((a) => a.status === 200)).toBe(true);
        const served = await Promise.all(['', 'a.css', 'b/c.js'].map(async (p) => (await fetch(`${svc.siteUrl('docs/race')}${p}`)).text()));
        expect(versions.map((v) => Object.values(v))).toContainEqual(served);
      }
    });
  });
}

/** Expiry and collection, on a service whose deploys live `ttl`. */
export function deployExpirySuite(name: string, open: () => Promise<DeployFixture>): void {
  describe(`deploy expiry and garbage collection: ${name} file store`, () => {
    let fx: DeployFixture;
    let svc: RunningService;
    let store: StoreProbe;
    let key: string;
    const api = deployApi(() => svc.url);

    beforeAll(async () => {
      fx = await open();
      svc = await startService({ env: { ...fx.env, SITES_DEPLOY_TTL: '3s' } });
      store = await fx.probe(svc.dataDir);
      key = await svc.createKey(['--name', 'ci', '--admin']);
    });
    afterAll(async () => {
      await store?.close();
      await svc?.stop();
      await fx?.dispose();
    });

    const until = async (what: string, check: () => Promise<boolean>, ms = 10_000) => {
      const deadline = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    it('sites gc keeps an open deploy\'s uploads; once it expires they answer 404 and are collected', async () => {
      const files = { 'index.html': `<h1>expiring ${Math.random()}</h1>`, 'only-here.css': `x{content:"${Math.random()}"}` };
      const manifest = api.manifest(files);
      const { body } = await api.create(key, { group: 'exp', slug: 'site', title: 'E' }, manifest);
      for (const [path, content] of Object.entries(files)) expect((await api.put(key, body.id, manifest[path]!, content)).status).toBe(204);
      // Nothing but the open deploy references these blobs: a full collection keeps them.
      const gc = await svc.cli(['gc']);
      expect(gc.code, gc.stderr).toBe(0);
      for (const digest of Object.values(manifest)) expect(await store.has(digest)).toBe(true);

      await new Promise((r) => setTimeout(r, Date.parse(body.expires_at) - Date.now() + 50));
      expect((await api.put(key, body.id, manifest['index.html']!, files['index.html'])).status).toBe(404);
      const late = await api.publish(key, body.id);
      expect(late.status).toBe(404);
      expect(late.body.code).toBe('not_found');
      // The service's job ends the deploy and deletes what only it held.
      await until('the expired deploy\'s uploads are collected', async () => !(await store.has(manifest['only-here.css']!)));
      expect(await store.has(manifest['index.html']!)).toBe(false);
    });

    it('sites gc itself collects an expired deploy\'s uploads, but never what a published revision uses', async () => {
      const kept = { 'index.html': `<h1>kept ${Math.random()}</h1>` };
      const k = api.manifest(kept);
      const first = await api.create(key, { group: 'exp', slug: 'kept', title: 'K' }, k);
      await api.put(key, first.body.id, k['index.html']!, kept['index.html']);
      expect((await api.publish(key, first.body.id)).status).toBe(200);
      // A second deploy of the site uploads one more content and is abandoned.
      const extra = `abandoned ${Math.random()}`;
      const second = await api.create(key, { group: 'exp', slug: 'kept' }, { ...k, 'extra.txt': sha256(extra) });
      expect(second.body.required).toEqual([sha256(extra)]);
      await api.put(key, second.body.id, sha256(extra), extra);
      await svc.halt(); // no expiry job: `sites gc` must do it on its own
      try {
        await new Promise((r) => setTimeout(r, Date.parse(second.body.expires_at) - Date.now() + 50));
        expect(await store.has(sha256(extra))).toBe(true);
        const gc = await svc.cli(['gc']);
        expect(gc.code, gc.stderr).toBe(0);
        expect(await store.has(sha256(extra))).toBe(false);
        expect(await store.has(k['index.html']!)).toBe(true);
      } finally {
        await svc.restart();
      }
      expect(await (await fetch(svc.siteUrl('exp/kept'))).text()).toBe(kept['index.html']);
    });
  });
}
