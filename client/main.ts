/**
 * The publishing client on its own: what the service hands out at `/cli/sites.mjs`, built
 * by esbuild from this folder into one dependency-free module, so a CI runner with nothing
 * but Node publishes with `node sites.mjs publish dist --site docs/app`.
 */
import { ClientError, ClientUsageError } from './errors.ts';
import { PUBLISH_USAGE, publishCommand } from './publish.ts';

/**
 * The service writes its own origin here when it serves this file, so a client downloaded
 * from `https://sites.example.com/cli/sites.mjs` publishes there unless told otherwise.
 */
const SERVED_FROM = '__SITES_SERVED_FROM__';
declare const CLIENT_VERSION: string;

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === 'version') {
    process.stdout.write(`${CLIENT_VERSION}\n`);
    return 0;
  }
  if (command !== 'publish') throw new ClientUsageError(`usage: node sites.mjs ${PUBLISH_USAGE}`);
  return publishCommand(rest, {
    env: process.env,
    defaultUrl: SERVED_FROM.startsWith('__') ? 'http://localhost:8080' : SERVED_FROM,
    out: (line) => process.stdout.write(`${line}\n`),
    warn: (line) => process.stderr.write(`sites: warning: ${line}\n`),
  });
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    const usage = err instanceof ClientUsageError;
    const expected = usage || err instanceof ClientError;
    const e = err as NodeJS.ErrnoException;
    const message = expected ? (err as Error).message : e?.path ? `${e.path}: ${e.code ?? e.message}` : `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    process.stderr.write(`sites: ${oneLine(message)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
