/** Pure content pieces: manifests, favicon detection, file trees, site metadata, the publish/GC gate. */
import { describe, expect, it } from 'vitest';
import { PublishGate } from '../../app/gate.ts';
import { ValidationError } from '../../domain/errors.ts';
import { faviconCandidates, sniffImageType } from '../../domain/favicon.ts';
import { fileTree } from '../../domain/file-tree.ts';
import { assertPublishable, parseManifest, serializeManifest, stripCommonTopFolder, totalSize, type ManifestEntry } from '../../domain/manifest.ts';
import { mergeMeta, parseMetaFields, patchMeta } from '../../domain/site/meta.ts';

const entry = (size: number, type = 'text/html'): ManifestEntry => ({ hash: `h${size}`, size, type });

describe('manifest', () => {
  it('serializes canonically: sorted by path whatever the insertion order', () => {
    const a = new Map([['b.css', entry(2, 'text/css')], ['index.html', entry(1)], ['a/x.js', entry(3, 'application/javascript')]]);
    const b = new Map([...a.entries()].reverse());
    expect(serializeManifest(a).equals(serializeManifest(b))).toBe(true);
    expect(JSON.parse(serializeManifest(a).toString())).toEqual({
      v: 1,
      files: [
        ['a/x.js', 'h3', 3, 'application/javascript'],
        ['b.css', 'h2', 2, 'text/css'],
        ['index.html', 'h1', 1, 'text/html'],
      ],
    });
  });

  it('parses back what it serialized', () => {
    const files = new Map([['index.html', entry(10)], ['img/ü.png', entry(20, 'image/png')]]);
    expect(parseManifest(serializeManifest(files)).files).toEqual(files);
    expect(totalSize(files)).toBe(30);
    expect(() => parseManifest(Buffer.from('{"v":2,"files":[]}'))).toThrow(/unknown manifest/);
  });

  it('strips one common top-level folder, and only then', () => {
    const strip = (...paths: string[]) => [...stripCommonTopFolder(new Map(paths.map((p) => [p, 1]))).keys()];
    expect(strip('site/index.html', 'site/a/b.css')).toEqual(['index.html', 'a/b.css']);
    expect(strip('site/index.html', 'other/x')).toEqual(['site/index.html', 'other/x']);
    expect(strip('index.html', 'site/x')).toEqual(['index.html', 'site/x']);
    expect(strip('site/sub/index.html')).toEqual(['sub/index.html']);
    expect(strip()).toEqual([]);
  });

  it('assertPublishable needs files and a root index.html', () => {
    expect(() => assertPublishable(new Map())).toThrow(ValidationError);
    expect(() => assertPublishable(new Map([['sub/index.html', 1]]))).toThrow(/index.html/);
    expect(() => assertPublishable(new Map([['index.html', 1]]))).not.toThrow();
  });
});

describe('favicon candidates', () => {
  const paths = (html: string, doc?: string) =>
    faviconCandidates(html, doc).map((c) => (c.kind === 'path' ? c.path : `data:${c.type}`));

  it('prefers SVG, then the largest declared raster, then favicon.ico', () => {
    const html = `<head>
      <link rel="icon" href="small.png" sizes="16x16">
      <link rel="shortcut icon" href="big.png" sizes="32x32 192x192">
      <link rel="stylesheet" href="style.css">
      <link href="logo.svg" rel="icon">
      <link rel="apple-touch-icon" href="apple.png">
    </head>`;
    expect(paths(html)).toEqual(['logo.svg', 'big.png', 'small.png', 'favicon.ico']);
  });

  it('recognizes SVG by type attribute too', () => {
    expect(paths(`<link rel=icon href=a.png sizes=64x64><link rel='icon' type='image/svg+xml' href='icon'>`)).toEqual(['icon', 'a.png', 'favicon.ico']);
  });

  it('decodes base64 and percent-encoded data URIs', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]);
    const [b64] = faviconCandidates(`<link rel="icon" href="data:image/png;base64,${png.toString('base64')}">`);
    expect(b64).toEqual({ kind: 'data', type: 'image/png', bytes: png });
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"></svg>';
    const [pct] = faviconCandidates(`<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}">`);
    expect(pct).toEqual({ kind: 'data', type: 'image/svg+xml', bytes: Buffer.from(svg) });
    expect(paths('<link rel="icon" href="data:text/html,hi">')).toEqual(['favicon.ico']);
  });

  it('ignores external and protocol-relative URLs', () => {
    expect(paths('<link rel="icon" href="https://evil.example/x.png"><link rel="icon" href="//cdn.example/y.png">')).toEqual(['favicon.ico']);
  });

  it('resolves a relative href against the document, root-relative against the root', () => {
    expect(paths('<link rel="icon" href="./img/i.png?v=2">')).toEqual(['img/i.png', 'favicon.ico']);
    expect(paths('<link rel="icon" href="i.png">', 'sub/index.html')).toEqual(['sub/i.png', 'favicon.ico']);
    expect(paths('<link rel="icon" href="/i.png">', 'sub/index.html')).toEqual(['i.png', 'favicon.ico']);
    expect(paths('<link rel="icon" href="../i.png">', 'sub/index.html')).toEqual(['i.png', 'favicon.ico']);
    expect(paths('<link rel="icon" href="my%20icon.png">')).toEqual(['my icon.png', 'favicon.ico']);
  });

  it('ignores hrefs that escape the root', () => {
    expect(paths('<link rel="icon" href="../secret.png">')).toEqual(['favicon.ico']);
    expect(paths('<link rel="icon" href="a/../../secret.png">')).toEqual(['favicon.ico']);
    expect(paths('<link rel="icon" href="%2e%2e/secret.png">')).toEqual(['favicon.ico']);
    expect(paths('<link rel="icon" href="%zz.png">')).toEqual(['favicon.ico']);
  });

  it('falls back to favicon.ico when there is no icon link', () => {
    expect(faviconCandidates('<html></html>')).toEqual([{ kind: 'path', path: 'favicon.ico' }]);
  });

  it('sniffImageType recognizes the common formats', () => {
    expect(sniffImageType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'x')).toBe('image/png');
    expect(sniffImageType(Buffer.from([0, 0, 1, 0, 1, 0]), 'x')).toBe('image/x-icon');
    expect(sniffImageType(Buffer.from('GIF89a'), 'x')).toBe('image/gif');
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff]), 'x')).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '), 'x')).toBe('image/webp');
    expect(sniffImageType(Buffer.from('  <?xml version="1.0"?><svg/>'), 'x')).toBe('image/svg+xml');
    expect(sniffImageType(Buffer.from('<SVG></SVG>'), 'x')).toBe('image/svg+xml');
    expect(sniffImageType(Buffer.from('plain'), 'image/vnd.microsoft.icon')).toBe('image/vnd.microsoft.icon');
  });
});

describe('file tree', () => {
  it('directories first, then by name, with sizes on files', () => {
    const tree = fileTree(new Map([['z.txt', entry(1)], ['index.html', entry(2)], ['b/y.css', entry(3)], ['a/c/d.js', entry(4)], ['a/b.js', entry(5)]]));
    expect(tree).toEqual({
      name: '',
      path: '',
      dir: true,
      children: [
        {
          name: 'a',
          path: 'a',
          dir: true,
          children: [
            { name: 'c', path: 'a/c', dir: true, children: [{ name: 'd.js', path: 'a/c/d.js', dir: false, size: 4 }] },
            { name: 'b.js', path: 'a/b.js', dir: false, size: 5 },
          ],
        },
        { name: 'b', path: 'b', dir: true, children: [{ name: 'y.css', path: 'b/y.css', dir: false, size: 3 }] },
        { name: 'index.html', path: 'index.html', dir: false, size: 2 },
        { name: 'z.txt', path: 'z.txt', dir: false, size: 1 },
      ],
    });
  });
});

describe('site metadata', () => {
  it('parseMetaFields keeps valid fields, trims and de-duplicates tags', () => {
    expect(parseMetaFields({ title: 'T', description: 'd', tags: [' a', 'a', 'b', ''], hidden: true, other: 1 }, false)).toEqual({
      title: 'T',
      description: 'd',
      tags: ['a', 'b'],
      hidden: true,
    });
  });

  it('parseMetaFields rejects bad values', () => {
    const bad: Record<string, unknown>[] = [
      { title: 3 },
      { title: '  ' },
      { description: 'x'.repeat(2001) },
      { tags: 'a' },
      { tags: [1] },
      { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
      { tags: ['x'.repeat(65)] },
      { hidden: 'yes' },
      { repo: null },
    ];
    for (const raw of bad) expect(() => parseMetaFields(raw, false), JSON.stringify(raw).slice(0, 60)).toThrow(ValidationError);
    expect(() => parseMetaFields({ title: null }, true)).toThrow(ValidationError);
  });

  it('empty strings: dropped on publish, clear the field on a patch', () => {
    expect(parseMetaFields({ description: '' }, false)).toEqual({});
    expect(parseMetaFields({ description: ' ' }, true)).toEqual({ description: null });
    expect(parseMetaFields({ repo: null, tags: null }, true)).toEqual({ repo: null, tags: null });
  });

  it('mergeMeta keeps omitted fields and normalises hidden', () => {
    const existing = { title: 'A', repo: 'r', tags: ['x'], hidden: true };
    expect(mergeMeta(existing, { description: 'd' })).toEqual({ title: 'A', repo: 'r', tags: ['x'], description: 'd', hidden: true });
    expect(mergeMeta(existing, { title: 'B', hidden: false, tags: [] })).toEqual({ title: 'B', repo: 'r', hidden: false });
    expect(mergeMeta(undefined, { title: 'New' })).toEqual({ title: 'New', hidden: false });
  });

  it('patchMeta clears fields set to null and keeps absent ones', () => {
    const existing = { title: 'A', repo: 'r', date: '2026-01-01', tags: ['x'], hidden: false };
    expect(patchMeta(existing, { repo: null, tags: null, preview: 'p' })).toEqual({ title: 'A', date: '2026-01-01', preview: 'p', hidden: false });
  });
});

describe('PublishGate', () => {
  /** A promise with its resolve function, to hold a holder of the gate open. */
  const latch = () => {
    let open!: () => void;
    const promise = new Promise<void>((r) => (open = r));
    return { promise, open };
  };
  const settle = () => new Promise((r) => setImmediate(r));

  it('shared holders run together; exclusive waits until they are done', async () => {
    const gate = new PublishGate();
    const log: string[] = [];
    const r1 = latch();
    const r2 = latch();
    const a = gate.shared(async () => (log.push('a+'), await r1.promise, log.push('a-')));
    const b = gate.shared(async () => (log.push('b+'), await r2.promise, log.push('b-')));
    const w = gate.exclusive(async () => log.push('w'));
    await settle();
    expect(log).toEqual(['a+', 'b+']);
    r1.open();
    await a;
    await settle();
    expect(log).toEqual(['a+', 'b+', 'a-']);
    r2.open();
    await Promise.all([b, w]);
    expect(log).toEqual(['a+', 'b+', 'a-', 'b-', 'w']);
  });

  it('prefers writers: a shared request arriving after a waiting exclusive one runs after it', async () => {
    const gate = new PublishGate();
    const log: string[] = [];
    const r = latch();
    const first = gate.shared(async () => (log.push('r1+'), await r.promise, log.push('r1-')));
    await settle();
    const w = gate.exclusive(async () => log.push('w'));
    const late = gate.shared(async () => log.push('r2'));
    await settle();
    expect(log).toEqual(['r1+']);
    r.open();
    await Promise.all([first, w, late]);
    expect(log).toEqual(['r1+', 'r1-', 'w', 'r2']);
  });

  it('exclusive holders exclude each other and release on failure', async () => {
    const gate = new PublishGate();
    const log: string[] = [];
    const r = latch();
    const w1 = gate.exclusive(async () => (log.push('w1+'), await r.promise, log.push('w1-')));
    const w2 = gate.exclusive(async () => log.push('w2'));
    await settle();
    expect(log).toEqual(['w1+']);
    r.open();
    await Promise.all([w1, w2]);
    expect(log).toEqual(['w1+', 'w1-', 'w2']);
    await expect(gate.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.shared(async () => 'after')).resolves.toBe('after');
  });
});
