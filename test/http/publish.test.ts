import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTarGz, makeZip, makeTarGzBomb, makeZipBomb } from '../support/archives.ts';
import { countBlobs } from '../support/blobs.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
let docsKey: string;
let siteKey: string;

const page = (title: string) => `<!doctype html><title>${title}</title><h1>${title}</h1>`;

async function listPaths(): Promise<string[]> {
  const res = await fetch(`${svc.url}/api/sites?limit=500`, { headers: { Authorization: `Bearer ${admin}` } });
  const body = (await res.json()) as { sites: { group: string; slug: string }[] };
  return body.sites.map((s) => (s.group ? `${s.group}/${s.slug}` : s.slug)).sort();
}

beforeAll(async () => {
  svc = await startService({ env: { SITES_MAX_EXTRACT_ENTRIES: '50', SITES_MAX_EXTRACT_BYTES: '2000000', SITES_MAX_UPLOAD_BYTES: '1500000' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  docsKey = await svc.createKey(['--name', 'docs', '--grant', 'docs:publish']);
  siteKey = await svc.createKey(['--name', 'one', '--grant-site', 'docs/app:publish']);
});
afterAll(() => svc?.stop());

describe('publishing', () => {
  it('publishes a .tar.gz, strips the single top folder, serves and lists it', async () => {
    const archive = await makeTarGz([
      { name: 'site/index.html', content: page('App') },
      { name: 'site/css/style.css', content: 'body{color:red}' },
      { name: 'site/about.html', content: page('About') },
    ]);
    const res = await publish(svc.url, admin, { group: 'docs', slug: 'app', title: 'App', tags: ['x'] }, { archive });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ group: 'docs', slug: 'app', url: svc.siteUrl('docs/app'), site: { title: 'App', tags: ['x'], hidden: false } });
    expect(res.body.revision).toMatch(/^\d{8}T\d{6}\.\d{9}Z$/);
    expect(res.body.site.size).toBe(page('App').length + 'body{color:red}'.length + page('About').length);
    expect(await (await fetch(svc.siteUrl('docs/app'))).text()).toBe(page('App'));
    expect(await (await fetch(`${svc.siteUrl('docs/app')}css/style.css`)).text()).toBe('body{color:red}');
    expect(await (await fetch(`${svc.siteUrl('docs/app')}about`)).text()).toBe(page('About'));
    expect(await listPaths()).toContain('docs/app');
  });

  it('publishes a .zip detected by magic bytes whatever its name', async () => {
    const archive = await makeZip([{ name: 'index.html', content: page('Zip') }]);
    const res = await publish(svc.url, admin, { group: '', slug: 'zipped', title: 'Zip' }, { archive, filename: 'site.tar.gz' });
    expect(res.status).toBe(200);
    expect(await (await fetch(svc.siteUrl('zipped'))).text()).toBe(page('Zip'));
  });

  it('publishes a single index document', async () => {
    const res = await publish(svc.url, admin, { group: 'grp/sub', slug: 'a', title: 'Deep' }, { index: page('Deep') });
    expect(res.status).toBe(200);
    expect(await (await fetch(svc.siteUrl('grp/sub/a'))).text()).toBe(page('Deep'));
  });

  it('keeps a flat site and a group of the same name isolated', async () => {
    expect((await publish(svc.url, admin, { group: '', slug: 'decks', title: 'Flat' }, { index: page('flat') })).status).toBe(200);
    expect((await publish(svc.url, admin, { group: 'decks', slug: 'pr-6', title: 'PR' }, { files: { 'index.html': page('pr6'), 'x.txt': 'x' } })).status).toBe(200);
    expect(await (await fetch(svc.siteUrl('decks'))).text()).toBe(page('flat'));
    expect(await (await fetch(svc.siteUrl('decks/pr-6'))).text()).toBe(page('pr6'));
    expect((await fetch(`${svc.siteUrl('decks')}x.txt`)).status).toBe(404);
  });

  it('replaces content atomically and keeps the title on replace', async () => {
    const res = await publish(svc.url, admin, { group: 'docs', slug: 'app' }, { files: { 'index.html': page('v2') } });
    expect(res.status).toBe(200);
    expect(res.body.site.title).toBe('App');
    expect(await (await fetch(svc.siteUrl('docs/app'))).text()).toBe(page('v2'));
    expect((await fetch(`${svc.siteUrl('docs/app')}css/style.css`)).status).toBe(404);
  });
});

describe('multipart variants that CI tools send', () => {
  it('accepts the bundle before meta (spooled), and meta sent as a file part', async () => {
    const archive = await makeTarGz([{ name: 'index.html', content: page('Order') }]);
    const form = new FormData();
    form.append('bundle', new Blob([new Uint8Array(archive)]), 'site.tgz');
    form.append('meta', new Blob([JSON.stringify({ group: 'order', slug: 'late-meta', title: 'Late' })], { type: 'application/json' }), 'meta.json');
    const res = await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${admin}` }, body: form });
    expect(res.status).toBe(200);
    expect(await (await fetch(svc.siteUrl('order/late-meta'))).text()).toBe(page('Order'));
  });

  it('refuses a non-multipart body with 415', async () => {
    const res = await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: 'unsupported_media_type' });
  });
});

describe('bad input changes nothing', () => {
  const cases: [string, () => Promise<{ status: number; body: any }>, number][] = [
    ['zip slip', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeTarGz([{ name: 'index.html', content: 'x' }, { name: '../evil', content: 'x' }]) }), 400],
    ['absolute path', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeTarGz([{ name: 'index.html', content: 'x' }, { name: '/etc/x', content: 'x' }]) }), 400],
    ['symlink in tar', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeTarGz([{ name: 'index.html', content: 'x' }, { type: 'symlink', name: 'l', target: '/etc/passwd' }]) }), 400],
    ['hard link in tar', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeTarGz([{ name: 'index.html', content: 'x' }, { type: 'hardlink', name: 'l', target: 'index.html' }]) }), 400],
    ['symlink in zip', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeZip([{ name: 'index.html', content: 'x' }, { type: 'symlink', name: 'l', target: '/etc/passwd' }]) }), 400],
    ['too many entries', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeTarGz([{ name: 'index.html', content: 'x' }, ...Array.from({ length: 60 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' }))]) }), 413],
    ['tar.gz bomb', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeTarGzBomb(50_000_000) }), 413],
    ['zip bomb', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: await makeZipBomb(50_000_000) }), 413],
    ['body over the upload limit', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { index: 'x'.repeat(1_600_000) }), 413],
    ['no index.html', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { files: { 'other.html': 'x' } }), 400],
    ['unknown archive format', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: Buffer.from('just some text, not an archive') }), 415],
    ['truncated archive', async () => publish(svc.url, admin, { slug: 'bad', title: 'x' }, { archive: (await makeTarGz([{ name: 'index.html', content: 'x'.repeat(5000) }])).subarray(0, 40) }), 400],
    ['bad label', async () => publish(svc.url, admin, { slug: 'Bad_Label', title: 'x' }, { index: 'x' }), 400],
    ['path deeper than 3', async () => publish(svc.url, admin, { group: 'a/b/c', slug: 'd', title: 'x' }, { index: 'x' }), 400],
    ['reserved slug', async () => publish(svc.url, admin, { group: 'docs', slug: 'revisions', title: 'x' }, { index: 'x' }), 400],
    ['new site without title', async () => publish(svc.url, admin, { slug: 'untitled' }, { index: 'x' }), 400],
  ];
  for (const [name, send, status] of cases) {
    it(`${name} → ${status}`, async () => {
      const before = await listPaths();
      const blobs = await countBlobs(svc.dataDir);
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
      expect(await listPaths()).toEqual(before);
      expect(await countBlobs(svc.dataDir)).toBe(blobs); // no orphaned files
    });
  }

  it('a group written as the host reads ("previews.docs") → 400 invalid that says labels are separated by / and names the group to send', async () => {
    const before = await listPaths();
    const res = await publish(svc.url, admin, { group: 'previews.docs', slug: 'app', title: 'x' }, { index: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid');
    expect(res.body.error).toContain('is not a valid label');
    expect(res.body.error).toContain('separated by "/"');
    expect(res.body.error).toContain('"docs/previews"');
    const slug = await publish(svc.url, admin, { slug: 'app.docs', title: 'x' }, { index: 'x' });
    expect(slug.status).toBe(400);
    expect(slug.body.error).toContain('"group": "docs", "slug": "app"');
    expect(await listPaths()).toEqual(before);
  });

  it('malformed meta JSON → 400', async () => {
    const form = new FormData();
    form.append('meta', '{not json');
    form.append('index', new Blob(['x']), 'index.html');
    const res = await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${admin}` }, body: form });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid' });
  });

  it('both bundle and index, or neither → 400', async () => {
    const both = new FormData();
    both.append('meta', JSON.stringify({ slug: 'both', title: 'x' }));
    both.append('index', new Blob(['x']), 'index.html');
    both.append('bundle', new Blob([new Uint8Array(await makeTarGz([{ name: 'index.html', content: 'x' }]))]), 'b.tgz');
    const r1 = await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${admin}` }, body: both });
    expect(r1.status).toBe(400);
    const neither = new FormData();
    neither.append('meta', JSON.stringify({ slug: 'neither', title: 'x' }));
    const r2 = await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${admin}` }, body: neither });
    expect(r2.status).toBe(400);
    expect(await listPaths()).not.toContain('both');
    expect(await listPaths()).not.toContain('neither');
  });
});

describe('authorization on the ingest plane', () => {
  it('refuses unknown keys, forward-auth and missing credentials with 401', async () => {
    expect((await publish(svc.url, undefined, { slug: 'nokey', title: 'x' }, { index: 'x' })).status).toBe(401);
    expect((await publish(svc.url, `key_${'A'.repeat(43)}`, { slug: 'nokey', title: 'x' }, { index: 'x' })).status).toBe(401);
    const viaProxy = await publish(svc.url, undefined, { slug: 'nokey', title: 'x' }, { index: 'x' }, '/ingest/sites', { 'Remote-User': 'admin' });
    expect(viaProxy.status).toBe(401);
    expect(viaProxy.body).toEqual({ error: expect.any(String), code: 'unauthenticated' });
  });

  it('a group grant owns its subtree and the flat site of the same name, nothing else', async () => {
    expect((await publish(svc.url, docsKey, { group: 'docs', slug: 'guide', title: 'G' }, { index: 'x' })).status).toBe(200);
    expect((await publish(svc.url, docsKey, { group: '', slug: 'docs', title: 'D' }, { index: 'x' })).status).toBe(200);
    const other = await publish(svc.url, docsKey, { group: 'other', slug: 'x', title: 'O' }, { index: 'x' });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    expect((await publish(svc.url, docsKey, { group: '', slug: 'docs2', title: 'O' }, { index: 'x' })).status).toBe(403);
  });

  it('a site grant covers exactly one site, not its siblings or children', async () => {
    expect((await publish(svc.url, siteKey, { group: 'docs', slug: 'app' }, { index: page('by site key') })).status).toBe(200);
    expect((await publish(svc.url, siteKey, { group: 'docs', slug: 'sibling', title: 'S' }, { index: 'x' })).status).toBe(403);
    expect((await publish(svc.url, siteKey, { group: 'docs/app', slug: 'child', title: 'C' }, { index: 'x' })).status).toBe(403);
    expect(await listPaths()).not.toContain('docs/sibling');
  });

  it('expired and revoked keys are rejected like unknown ones', async () => {
    const expiring = await svc.createKey(['--name', 'soon', '--admin', '--expires-in', '1s']);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await publish(svc.url, expiring, { slug: 'late', title: 'x' }, { index: 'x' })).status).toBe(401);
    const json = JSON.parse((await svc.cli(['keys', 'create', '--name', 'gone', '--admin', '--json'])).stdout);
    expect((await svc.cli(['keys', 'revoke', '--id', String(json.id)])).code).toBe(0);
    expect((await publish(svc.url, json.key, { slug: 'late', title: 'x' }, { index: 'x' })).status).toBe(401);
  });
});

describe('empty files are ordinary files (spec §4)', () => {
  const emptyServed = async (url: string) => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect(await res.text()).toBe('');
  };

  it('a 0-byte index.html publishes through a .tar.gz, a .zip and the index part, and is served with Content-Length: 0', async () => {
    const tar = await makeTarGz([{ name: 'index.html', content: '' }, { name: 'empty.css', content: '' }, { name: 'page.html', content: page('p') }]);
    const fromTar = await publish(svc.url, admin, { group: 'empty', slug: 'tar', title: 'Empty' }, { archive: tar });
    expect(fromTar.status, JSON.stringify(fromTar.body)).toBe(200);
    expect(fromTar.body.site.size).toBe(page('p').length);
    await emptyServed(svc.siteUrl('empty/tar'));
    await emptyServed(`${svc.siteUrl('empty/tar')}empty.css`);
    const head = await fetch(svc.siteUrl('empty/tar'), { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('0');

    const zip = await makeZip([{ name: 'index.html', content: '' }]);
    expect((await publish(svc.url, admin, { group: 'empty', slug: 'zip', title: 'Empty' }, { archive: zip })).status).toBe(200);
    await emptyServed(svc.siteUrl('empty/zip'));

    expect((await publish(svc.url, admin, { group: 'empty', slug: 'index', title: 'Empty' }, { index: '' })).status).toBe(200);
    await emptyServed(svc.siteUrl('empty/index'));
  });

  it('empty files appear in the file tree and in a diff', async () => {
    const first = await publish(svc.url, admin, { group: 'empty', slug: 'diff', title: 'D' }, { files: { 'index.html': page('d') } });
    const second = await publish(svc.url, admin, { group: 'empty', slug: 'diff' }, { files: { 'index.html': page('d'), '.nojekyll': '' } });
    expect(second.status).toBe(200);
    const headers = { Authorization: `Bearer ${admin}` };
    const tree = await (await fetch(`${svc.url}/api/sites/empty/diff/revisions/current/files`, { headers })).json();
    expect(tree.children).toContainEqual({ name: '.nojekyll', path: '.nojekyll', dir: false, size: 0 });
    const diff = await (await fetch(`${svc.url}/api/sites/empty/diff/revisions/${first.body.revision}/diff/current`, { headers })).json();
    expect(diff.added).toEqual([{ path: '.nojekyll', size: 0 }]);
  });
});
