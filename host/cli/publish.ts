import { ClientError, ClientUsageError } from '../../client/errors.ts';
import { previewsCommand } from '../../client/previews.ts';
import { publishCommand, type PublishEnv } from '../../client/publish.ts';
import { UsageError } from './args.ts';
import { CliError } from './failure.ts';
import { serviceUrl } from './service-url.ts';

/**
 * `sites publish DIR --site GROUP/SLUG`: the publishing client (client/, the same code the
 * service hands out at /cli/sites.mjs) with this shell's defaults. It hashes the folder,
 * uploads only what the site lacks through the incremental deploy protocol (spec §10), and
 * prints `published N files (K new, X uploaded) to URL (revision …)`. The client's
 * failures become the CLI's: bad usage exits 2, any other failure 1, each one line.
 */
export function publishCli(argv: string[]): Promise<number> {
  return asCli(() => publishCommand(argv, shell()));
}

/** `sites previews list|remove`: the client's command (client/previews.ts), as publish is. */
export function previewsCli(argv: string[]): Promise<number> {
  return asCli(() => previewsCommand(argv, shell()));
}

function shell(): PublishEnv {
  return {
    env: process.env,
    program: 'sites',
    // SITES_URL and --url are read by the client; without them, the service of this shell's SITES_LISTEN_ADDR.
    defaultUrl: serviceUrl(undefined, { SITES_LISTEN_ADDR: process.env.SITES_LISTEN_ADDR }).href,
    // deploy/SKILL.md quotes the summary line: agents read it.
    out: (line) => console.log(line),
    note: (line) => process.stderr.write(`sites: ${line}\n`),
    warn: (line) => process.stderr.write(`sites: warning: ${line}\n`),
  };
}

async function asCli(command: () => Promise<number>): Promise<number> {
  try {
    return await command();
  } catch (err) {
    if (err instanceof ClientUsageError) throw new UsageError(err.message);
    if (err instanceof ClientError) throw new CliError(err.message);
    throw err;
  }
}
