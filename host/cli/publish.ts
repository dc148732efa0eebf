import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline as pipe, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { parseSitePath } from '../../domain/paths.ts';
import { only, parseArgs, single, UsageError } from './args.ts';
import { CliError, systemReason } from './failure.ts';
import { plural } from './format.ts';
import { progressLine, type Progress } from './progress.ts';
import { serviceUrl } from './service-url.ts';
import { siteFiles, type SiteFile } from './site-folder.ts';
import { postStream, type Answer } from './upload.ts';

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
  const base = serviceUrl(single(parsed, 'url'));
  const title = single(parsed, 'title');

  const files = await siteFiles(dir);
  const total = files.reduce((n, f) => n + f.size, 0);
  const meta = JSON.stringify({ group: address.group, slug: address.slug, ...(title ? { title } : {}) });
  const boundary = `----sites${randomBytes(12).toString('hex')}`;
  const progress = progressLine(total, files.length);
  let answer: Answer;
  try {
    answer = await postStream(
      new URL('/ingest/sites', base),
      { Authorization: `Bearer ${key}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
      multipart(boundary, meta, files, progress),
    );
  } catch (err) {
    throw unreachable(err, base);
  } finally {
    progress.end();
  }
  const result = outcome(answer, base);
  // deploy/SKILL.md quotes this line and the failure line below: agents read them.
  console.log(`published ${plural(files.length, 'file')} to ${result.url} (revision ${result.revision})`);
  return 0;
}

/** The form the ingest plane takes: the `meta` part, then the folder as a streamed .tar.gz. */
function multipart(boundary: string, meta: string, files: readonly SiteFile[], progress: Progress): Readable {
  const pack = tar.pack();
  // Errors travel down to the gzip stream, which the body reads: a file that cannot be
  // read fails the request (and so the command) instead of hanging it.
  const gzipped = pipe(pack, createGzip(), () => {});
  void (async () => {
    for (const f of files) {
      await pipeline(createReadStream(f.path), pack.entry({ name: f.name, size: f.size, mode: 0o644 }));
      progress.file(f.size);
    }
    pack.finalize();
  })().catch((err: Error) => pack.destroy(err));
  return Readable.from(
    (async function* () {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n${meta}\r\n`);
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="site.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`);
      yield* gzipped;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    })(),
    { objectMode: false },
  );
}

/** A failure to talk to the service at all, in words: the most common one is "it is not running". */
function unreachable(err: unknown, base: URL): unknown {
  const e = err as NodeJS.ErrnoException;
  const where = base.origin;
  if (e?.code === 'ECONNREFUSED') return new CliError(`cannot reach ${where} (connection refused) — is the service running?`);
  if (e?.code === 'EPIPE' || e?.code === 'ECONNRESET') return new CliError(`${where} closed the connection during the upload without an answer (${e.code})`);
  if (e?.path) return err; // reading the folder failed: reportFailure names the file
  if (e?.code && systemReason(e)) return new CliError(`cannot reach ${where} (${systemReason(e)})`);
  if (/CERT|TLS|SSL/.test(e?.code ?? '')) return new CliError(`cannot reach ${where} (TLS: ${e.message})`);
  return err;
}

/** The server's answer as the result, or as one line: `publish failed (<status>): <the server's error>`. */
function outcome(answer: Answer, base: URL): { url: string; revision: string } {
  const reason = answerReason(answer);
  if (answer.status >= 200 && answer.status < 300) {
    try {
      return JSON.parse(answer.text) as { url: string; revision: string };
    } catch {
      throw new CliError(`the server answered ${answer.status} but not with a publish result (is --url the sites service?)`);
    }
  }
  if (answer.status === 404 && answer.text.trim() === 'unknown host') {
    throw new CliError(`publish failed (404): the service does not answer the host ${base.host}; give --url with its base domain (e.g. http://localhost:8080)`);
  }
  const location = answer.headers.location;
  if (answer.status >= 300 && answer.status < 400 && location) throw new CliError(`publish failed (${answer.status}): the server redirects to ${location}; use that as --url`);
  throw new CliError(`publish failed (${answer.status}): ${reason}`);
}

/** The server's JSON `error`; else a short plain-text body; else the status text. */
function answerReason(answer: Answer): string {
  try {
    const body = JSON.parse(answer.text) as { error?: unknown };
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {
    /* not JSON: a proxy's page, or the service's plain "unknown host" */
  }
  const text = answer.text.trim();
  if (text && text.length <= 200 && !text.startsWith('<')) return text.replace(/\s+/g, ' ');
  return answer.statusText || 'no reason given';
}
