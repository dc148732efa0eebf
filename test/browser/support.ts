/**
 * Shared helpers of the browser suite: launching Debian's Chromium through playwright-core,
 * seeding sites through the real ingest API, and reading a site host's bytes.
 */
import { existsSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import JSZip from 'jszip';
import { expect } from 'vitest';

/**
 * Debian's `chromium-headless-shell` (the same Blink as `chromium`, without the desktop browser
 * around it: what playwright itself runs for headless tests) when installed: it took half the
 * CPU time of the full browser on the portal's tests. Otherwise Debian's `chromium`.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ?? '/usr/bin/chromium-headless-shell';
export const SHOTS = join(process.cwd(), 'test-results');
/** Every view at both sizes, for a person to look at before a UI change is done (see `shootView`). */
export const SCREENSHOTS = join(SHOTS, 'screenshots');

/**
 * Whether the browser suite can run. Without Chromium it is skipped locally (saying so),
 * but under CI a missing browser must fail the run, never pass silently.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium-headless-shell); the browser suite must run in CI`);
  console.warn(`[browser tests] skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium-headless-shell)`);
  return false;
}

export async function launch(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** A fresh browser context; who it is signed in as depends on the auth proxy it browses through. */
export async function newContext(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
  return browser.newContext({ viewport, acceptDownloads: true });
}

/** Records console errors and uncaught exceptions of a page, so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()} @ ${m.location().url}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

export type SeedSite = {
  group: string;
  slug: string;
  title?: string;
  description?: string;
  date?: string;
  tags?: string[];
  hidden?: boolean;
  preview?: string;
  files: Record<string, string | Buffer>;
};

export async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, content] of Object.entries(files)) zip.file(name, content);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** Publishes through `POST /ingest/sites` (multipart meta + bundle), as a CI job would. */
export async function publish(base: string, token: string, site: SeedSite): Promise<Response> {
  const { files, ...meta } = site;
  const form = new FormData();
  form.append('meta', new Blob([JSON.stringify(meta)], { type: 'application/json' }));
  form.append('bundle', new Blob([new Uint8Array(await zipOf(files))], { type: 'application/zip' }), 'site.zip');
  return fetch(`${base}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
}

export async function publishOk(base: string, token: string, site: SeedSite): Promise<void> {
  const res = await publish(base, token, site);
  if (res.status !== 200) throw new Error(`seeding ${site.group}/${site.slug}: ${res.status} ${await res.text()}`);
}

/** The site host for a path under `localhost`: `docs/app` → `app.docs.localhost`. */
export function siteHost(path: string, port: number): string {
  const labels = path.split('/');
  return `${[labels.pop()!, ...labels.reverse()].join('.')}.localhost:${port}`;
}

/**
 * GET on a site host. Node cannot resolve `*.localhost` here, so connect to the apex's
 * address and send the site's Host header, exactly what a browser sends.
 */
export function getFromSite(apex: string, path: string, port: number, urlPath = '/'): Promise<{ status: number; body: string }> {
  const { hostname } = new URL(apex);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: hostname, port, path: urlPath, headers: { Host: siteHost(path, port) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
  });
}

/** A page of HTML whose heading names the site and version: easy to recognise in the preview and on the host. */
export function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><h1>${title}</h1><p>${body}</p></body></html>`;
}

/** A 1×1 PNG (a real image for the preview and the bytes check). */
export const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Polls until the assertion holds (10 s): the UI updates asynchronously after each action. */
export function eventually<T>(fn: () => Promise<T> | T) {
  return expect.poll(fn, { timeout: 10_000, interval: 50 });
}

/** A solid-colour PNG with a band of a second colour: two of them differ visibly side by side. */
export function pngOf(width: number, height: number, rgb: [number, number, number], band: [number, number, number] = [255, 255, 255]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const inBand = y > height / 3 && y < (2 * height) / 3;
    for (let x = 0; x < width; x++) raw.set(inBand && x > width / 4 && x < (3 * width) / 4 ? band : rgb, y * (width * 3 + 1) + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Saves a view at 1280×900 and 390×844 as `test-results/screenshots/<name>-desktop.png` and
 * `…-phone.png`: each size in its own page, loaded at that size from the start (layouts decided
 * at first render, such as the open group sidebar, are then the ones a person gets). `ready`
 * waits until the view shows what it should. Also checks that nothing scrolls sideways on the phone.
 */
export async function shootView(
  browser: Browser,
  url: string,
  name: string,
  ready: (page: Page) => Promise<unknown>,
  opts: { fullPage?: boolean; allowErrors?: RegExp } = {},
): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await Promise.all(
    ([['desktop', DESKTOP], ['phone', PHONE]] as const).map(async ([size, viewport]) => {
      const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      try {
        const page = await ctx.newPage();
        const errors = watchErrors(page);
        await page.goto(url);
        await ready(page);
        // relative times and lazy thumbnails settle; fonts are system fonts, nothing else to wait for
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: opts.fullPage ?? true });
        if (size === 'phone') expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} scrolls sideways on a phone`).toBeLessThanOrEqual(viewport.width);
        expect(errors.filter((e) => !opts.allowErrors?.test(e)), `${name} (${size}) logged errors`).toEqual([]);
      } finally {
        await ctx.close();
      }
    }),
  );
}
