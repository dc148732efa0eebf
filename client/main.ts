/**
 * The publishing client on its own: what the service hands out at `/cli/sites.mjs`, built
 * by esbuild from this folder into one dependency-free module, so a CI runner with nothing
 * but Node publishes with `node sites.mjs publish dist --site docs/app`.
 */
import { ClientError, ClientUsageError } from './errors.ts';
import { previewsCommand } from './previews.ts';
import { PUBLISH_USAGE, publishCommand, type PublishEnv } from './publish.ts';
import { PREVIEWS_USAGE } from './usage.ts';

const PROGRAM = 'node sites.mjs';

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
  const defaultUrl = SERVED_FROM.startsWith('__') ? 'http://localhost:8080' : SERVED_FROM;
  if (command === '--help' || command === 'help') {
    if (rest[0] === 'previews') return previewsCommand(['--help'], io(defaultUrl));
    // Publishing is what the client is for: its help is the story; previews get a pointer.
    process.stdout.write(`sites publishing client ${CLIENT_VERSION}: publishes a folder to ${defaultUrl} (or SITES_URL)\n\n`);
    const code = await publishCommand(['--help'], io(defaultUrl));
    process.stdout.write(`\nAlso: ${PROGRAM} ${PREVIEWS_USAGE.replace('\n       ', `\n      ${PROGRAM} `)}\n(${PROGRAM} previews --help says more)\n`);
    return code;
  }
  if (command === 'previews') return previewsCommand(rest, io(defaultUrl));
  if (command !== 'publish') throw new ClientUsageError(`usage: ${PROGRAM} ${PUBLISH_USAGE} (${PROGRAM} --help says more)`);
  return publishCommand(rest, io(defaultUrl));
}

function io(defaultUrl: string): PublishEnv {
  return {
    env: process.env,
    program: PROGRAM,
    defaultUrl,
    out: (line: string) => void process.stdout.write(`${line}\n`),
    note: (line: string) => void process.stderr.write(`sites: ${line}\n`),
    warn: (line: string) => void process.stderr.write(`sites: warning: ${line}\n`),
  };
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
