import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join, relative, sep } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { parseSitePath } from '../../domain/paths.ts';
import { only, parseArgs, single, UsageError } from './args.ts';

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/**
 * `sites publish DIR --site GROUP/SLUG`: packs DIR as a .tar.gz while sending it (never
 * the whole archive in memory) to the ingest plane, with a progress line on a TTY.
 */
export async function publishCli(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv);
  only(parsed, ['site', 'title', 'url', 'key']);
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UsageError('usage: sites publish DIR --site GROUP/SLUG [--title T] [--url URL] [--key KEY]');
  const siteArg = single(parsed, 'site');
  if (!siteArg) throw new UsageError('--site GROUP/SLUG is required');
  let address;
  try {
    address = parseSitePath(siteArg);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const key = single(parsed, 'key') ?? process.env.SITES_KEY;
  if (!key) throw new UsageError('give --key KEY or set SITES_KEY');
  const base = single(parsed, 'url') ?? process.env.SITES_URL ?? `http://${process.env.SITES_LISTEN_ADDR ?? '127.0.0.1:8080'}`;
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`${dir} is not a directory`);

  const files: { path: string; size: number }[] = [];
  for await (const file of walk(dir)) files.push({ path: file, size: (await stat(file)).size });
  const total = files.reduce((n, f) => n + f.size, 0);
  const meta = JSON.stringify({ group: address.group, slug: address.slug, ...(single(parsed, 'title') ? { title: single(parsed, 'title') } : {}) });

  const boundary = `----sites${randomBytes(12).toString('hex')}`;
  const url = new URL('/ingest/sites', base);
  const body = new PassThrough();
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  body.pipe(req);
  body.write(`--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n${meta}\r\n`);
  body.write(`--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="site.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`);

  const pack = tar.pack();
  const packing = (async () => {
    let sent = 0;
    const tty = process.stderr.isTTY;
    for (const [index, f] of files.entries()) {
      const name = relative(dir, f.path).split(sep).join('/');
      const entry = pack.entry({ name, size: f.size, mode: 0o644 });
      await pipeline(createReadStream(f.path), entry);
      sent += f.size;
      if (tty) process.stderr.write(`\r${progressBar(sent, total)} ${index + 1}/${files.length} files`);
    }
    if (tty) process.stderr.write('\n');
    pack.finalize();
  })();
  await Promise.all([
    packing,
    pipeline(pack, createGzip(), new Transform({ transform: (c, _e, cb) => cb(null, c) }), body, { end: false }).then(() => {
      body.end(`\r\n--${boundary}--\r\n`);
    }),
  ]);
  const res = await response;
  if (res.status !== 200) {
    let message = res.text;
    try {
      message = (JSON.parse(res.text) as { error: string }).error;
    } catch {
      /* not JSON */
    }
    throw new Error(`publish failed (${res.status}): ${message}`);
  }
  const result = JSON.parse(res.text) as { url: string; revision: string };
  console.log(`published ${files.length} files to ${result.url} (revision ${result.revision})`);
  return 0;
}

function progressBar(done: number, total: number): string {
  const width = 30;
  const ratio = total === 0 ? 1 : done / total;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%`;
}
