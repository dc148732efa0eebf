import { relative, isAbsolute, join } from 'node:path';
import type { Config } from '../config.ts';

/**
 * The line `sites serve` starts with: where it listens, the URL people open, and which
 * store serves each port, so a newcomer sees at once what runs and where the data goes,
 * e.g. `serving http://localhost:8080/ on 127.0.0.1:8080 (base domain localhost) —
 * events: SQLite (./data/events.sqlite), read model: SQLite (./data/readmodel.sqlite),
 * files: folder ./data/blobs, versioning on (keep 5)`. Connection strings are shown
 * without credentials or options: the line goes to logs.
 */
export function serveBanner(config: Config, listen: { host: string; port: number }, origin: string, cwd = process.cwd()): string {
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const path = (...parts: string[]) => shortPath(join(config.dataDir, ...parts), cwd);
  const events = config.eventStoreUrl ? `EventStoreDB (${endpoint(config.eventStoreUrl)})` : `SQLite (${path('events.sqlite')})`;
  const readModel = config.mongoUrl ? `MongoDB (${endpoint(config.mongoUrl)})` : `SQLite (${path('readmodel.sqlite')})`;
  const files = config.s3 ? `S3 bucket ${config.s3.bucket} at ${endpoint(config.s3.endpoint)}` : `folder ${path('blobs')}`;
  const versioning = config.versioning.enabled ? `versioning on (keep ${config.versioning.keep})` : 'versioning off';
  const aliases = config.aliasDomains.length ? `, aliases ${config.aliasDomains.join(', ')}` : '';
  return `serving ${origin}/ on ${host}:${listen.port} (base domain ${config.baseDomain}${aliases}) — events: ${events}, read model: ${readModel}, files: ${files}, ${versioning}`;
}

/** `./data/blobs` for a path under the working folder, the absolute path otherwise. */
function shortPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? `./${rel}` : path;
}

/** `scheme://host:port/path` of a connection string: no user, password or query. */
function endpoint(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)(?:[^@/]*@)?([^/?#]*)([^?#]*)/i.exec(url);
  return m ? `${m[1]}${m[2]}${m[3]}` : 'configured';
}
