import { appendFileSync, realpathSync } from 'node:fs';
import { parseFlags, parseSite } from './args.ts';
import { deploy } from './deploy.ts';
import { cacheDir, openDigestCache } from './digest-cache.ts';
import { ClientUsageError } from './errors.ts';
import { siteFiles } from './folder.ts';
import { count, formatBytes } from './format.ts';

export const PUBLISH_USAGE = 'publish DIR --site GROUP/SLUG [--title T] [--url URL] [--key KEY]';

export type PublishEnv = {
  readonly env: NodeJS.ProcessEnv;
  /** Where the service is when neither --url nor SITES_URL says: the local service, or where this client was downloaded from. */
  readonly defaultUrl: string;
  readonly out: (line: string) => void;
  readonly warn: (line: string) => void;
};

function serviceUrl(raw: string, from: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ClientUsageError(`${from} ${JSON.stringify(raw)} is not a URL (e.g. https://sites.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClientUsageError(`${from} ${JSON.stringify(raw)}: only http:// and https:// URLs`);
  return url;
}

/**
 * `publish DIR --site GROUP/SLUG`: hashes the folder, uploads only what the site does not
 * have yet (spec §10), publishes, and says so in one line. On GitHub Actions it also
 * writes the `url` and `revision` outputs.
 */
export async function publishCommand(argv: readonly string[], io: PublishEnv): Promise<number> {
  const { positionals, flags } = parseFlags(argv, ['site', 'title', 'url', 'key']);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new ClientUsageError(`usage: ${PUBLISH_USAGE}`);
  const siteArg = flags.get('site');
  if (!siteArg) throw new ClientUsageError('--site GROUP/SLUG is required');
  const site = parseSite(siteArg);
  const key = flags.get('key') ?? io.env.SITES_KEY;
  if (!key) throw new ClientUsageError('give --key KEY or set SITES_KEY');
  const base = flags.has('url') ? serviceUrl(flags.get('url')!, '--url') : io.env.SITES_URL ? serviceUrl(io.env.SITES_URL, 'SITES_URL') : serviceUrl(io.defaultUrl, 'the default URL');
  const title = flags.get('title');

  const files = await siteFiles(dir, io.warn);
  const cache = openDigestCache(cacheDir(io.env), realpathSync(dir));
  const { result, newFiles, uploadedBytes } = await deploy({ base, key, meta: { ...site, ...(title ? { title } : {}) }, files, cache });
  io.out(`published ${count(files.length, 'file')} (${newFiles.toLocaleString('en')} new, ${formatBytes(uploadedBytes)} uploaded) to ${result.url} (revision ${result.revision})`);
  if (io.env.GITHUB_OUTPUT) appendFileSync(io.env.GITHUB_OUTPUT, `url=${result.url}\nrevision=${result.revision}\n`);
  return 0;
}
