/**
 * Entry point: `npm run diary` serves stdio (stdout carries JSON-RPC only; logs
 * go to stderr), `npm run diary -- --http HOST:PORT` serves Streamable HTTP at `/mcp`.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { isLoopback, readConfig } from './config.ts';
import { startHttp } from './http.ts';
import { createDiaryServer } from './server.ts';
import { createUpstream } from './upstream/client.ts';

const config = readConfig(process.argv.slice(2), process.env);
if (typeof config === 'string') {
  process.stderr.write(`${config}\n`);
  process.exit(2);
}

// One upstream client per process: every server instance shares its login.
const deps = { upstream: createUpstream(config.upstream), now: () => new Date() };
const factory = () => createDiaryServer(deps);

if (config.listen.kind === 'stdio') {
  // Launched by a host through `npm run diary` without -s: npm has already written its
  // banner onto stdout, the JSON-RPC stream. Say so where a person looking will see it.
  if (process.env.npm_lifecycle_event && process.env.npm_config_loglevel !== 'silent' && !process.stdin.isTTY) {
    process.stderr.write('diary: npm printed its banner on stdout, which corrupts the JSON-RPC stream; launch `node bin/diary.mjs` (or `npm run -s diary`) instead\n');
  }
  serveStdio(factory, { onerror: (e) => process.stderr.write(`diary: ${e.message}\n`) });
} else {
  const { host, port } = config.listen;
  if (!isLoopback(host)) {
    process.stderr.write(`diary: warning: serving on ${host}, which is not loopback; the endpoint has no authentication\n`);
    // Otherwise every request naming this address would get a 403 with no hint why.
    if (!config.http.allowedHosts.length) process.stderr.write('diary: only requests whose Host is localhost, 127.0.0.1 or [::1] are answered; list other names in DIARY_ALLOWED_HOSTS\n');
  }
  const endpoint = await startHttp(factory, host, port, config.http);
  process.stderr.write(`diary: serving Streamable HTTP at ${endpoint.url}\n`);
  const stop = (): void => {
    void endpoint.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
