import { isIP } from 'node:net';
import { UsageError } from './args.ts';

/**
 * The service the CLI talks to: `--url`, else `SITES_URL`, else the local service. That
 * is `http://localhost:8080` (spec §9), or the port of `SITES_LISTEN_ADDR` when it is set
 * in this shell too, so `SITES_LISTEN_ADDR=127.0.0.1:9000` works for both commands.
 * `localhost` rather than the IP: it is the default apex, so every page link the service
 * answers with points where the CLI already reached.
 */
export function serviceUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): URL {
  const raw = flag ?? (env.SITES_URL || undefined) ?? localUrl(env.SITES_LISTEN_ADDR);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag !== undefined ? '--url' : 'SITES_URL'} ${JSON.stringify(raw)} is not a URL (e.g. http://localhost:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${JSON.stringify(raw)}: only http:// and https:// URLs`);
  return url;
}

function localUrl(listen: string | undefined): string {
  const m = listen ? /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen.trim()) : null;
  if (!m) return 'http://localhost:8080';
  const host = (m[1] ?? m[2] ?? '').toLowerCase();
  // A wildcard or loopback bind answers on localhost; any other address is used as given.
  const local = host === '' || host === 'localhost' || host === '0.0.0.0' || host === '::' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  const name = local ? 'localhost' : isIP(host) === 6 ? `[${host}]` : host;
  return `http://${name}:${m[3]}`;
}
